/**
 * The checks of `deno task ok` that `deno test` does not run itself, so CI
 * (which runs only the test task) keeps the tree formatted and lint-clean,
 * and type-checks bench/, which no test imports.
 */
import assert from "node:assert/strict";
import { join } from "node:path";

const ROOT = join(import.meta.dirname!, "..");

async function deno(...args: string[]): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) +
    new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, `deno ${args.join(" ")} failed:\n${text}`);
}

Deno.test("the tree is formatted (deno fmt --check)", async () => {
  await deno("fmt", "--check");
});

Deno.test("the tree passes deno lint", async () => {
  await deno("lint");
});

Deno.test("main.ts and bench/ type-check", async () => {
  await deno("check", "main.ts", "bench");
});
