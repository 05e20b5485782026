/**
 * `deno compile` embeds only what main.ts imports; a Worker module is named
 * by URL and must be listed with --include, or the binary starts without
 * it. This test finds every module src/ names that way and checks that both
 * compile tasks include it.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import denoJson from "../deno.json" with { type: "json" };

const ROOT = join(import.meta.dirname!, "..");
const MODULE_URL = /new URL\("(\.\.?\/[^"]+\.ts)", import\.meta\.url\)/g;

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory && entry.name !== "testdata") {
      yield* sourceFiles(path);
    } else if (
      entry.isFile && entry.name.endsWith(".ts") &&
      !entry.name.endsWith("_test.ts")
    ) yield path;
  }
}

Deno.test("the compile tasks include every module src/ loads by URL", async () => {
  const named = new Set<string>();
  for await (const file of sourceFiles(join(ROOT, "src"))) {
    const text = await Deno.readTextFile(file);
    for (const m of text.matchAll(MODULE_URL)) {
      named.add(relative(ROOT, join(file, "..", m[1]!)));
    }
  }
  assert.ok(named.has("src/listeners/worker_entry.ts"), [...named].join());
  const tasks = denoJson.tasks as Record<string, string>;
  for (const task of ["compile:linux-amd64", "compile:linux-arm64"]) {
    for (const module of named) {
      assert.ok(
        tasks[task]!.includes(`--include ${module}`),
        `${task} must --include ${module}`,
      );
    }
  }
});
