/**
 * The web UI that the program embeds (ui/dist, committed so that the
 * README's commands need no build step) is what its sources build to now:
 * after changing ui/src, run `deno task ui:build`.
 */
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { buildUi, readDist } from "../../scripts/build_ui.ts";

Deno.test({
  name: "ui: the committed bundle in ui/dist is a fresh build of ui/src",
  // esbuild serves builds from a child process that its stop() ends
  // without waiting for it to exit: the sanitizers would see it still
  // running on a machine where it is slow to go.
  sanitizeOps: false,
  sanitizeResources: false,
  fn: freshBuild,
});

async function freshBuild() {
  const fresh = await buildUi();
  const committed = await readDist();
  assert.deepEqual(
    [...committed.keys()].sort(),
    [...fresh.keys()].sort(),
    "ui/dist holds other files than a build makes: deno task ui:build",
  );
  for (const [path, bytes] of fresh) {
    assert.ok(
      committed.get(path)!.length === bytes.length &&
        committed.get(path)!.every((b, i) => b === bytes[i]),
      `ui/dist/${path} differs from a fresh build: deno task ui:build`,
    );
  }
}

Deno.test("ui: the first load's script is at most 150 KB gzipped", async () => {
  const committed = await readDist();
  const script = [...committed].find(([path]) => path.endsWith(".js"));
  assert.ok(script, "a script in ui/dist/assets");
  const gzipped = gzipSync(script[1], { level: 9 }).length;
  assert.ok(gzipped <= 150 * 1024, `${script[0]}: ${gzipped} bytes gzipped`);
});
