import assert from "node:assert/strict";
import { join } from "node:path";
import { memoryLogger } from "../log/logger.ts";
import { listFilePath, listMetaPath } from "../blocking/list_files.ts";
import {
  ListFilesSweep,
  SWEEP_INTERVAL_MS,
  UNWANTED_GRACE_MS,
} from "./list_files_sweep.ts";

const KEPT = "https://lists.example/kept.txt";
const GONE = "https://lists.example/gone.txt?token=1";

async function filesIn(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) names.push(e.name);
  return names.sort();
}

Deno.test("ListFilesSweep removes a URL's body, sidecar and temp files an hour after no source wants it, and nothing else", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (const url of [KEPT, GONE]) {
      await Deno.writeTextFile(listFilePath(dir, url), "ads.example\n");
      await Deno.writeTextFile(listMetaPath(dir, url), "{}");
    }
    await Deno.writeTextFile(`${listFilePath(dir, GONE)}.tmp-0011`, "x");
    await Deno.writeTextFile(join(dir, "README"), "not ours");
    const before = await filesIn(dir);
    const sweep = new ListFilesSweep(dir, memoryLogger());
    const t0 = 1_000_000_000;
    assert.ok(sweep.isDue(t0));
    await sweep.sweep([KEPT], t0); // GONE first seen unwanted
    assert.ok(!sweep.isDue(t0 + SWEEP_INTERVAL_MS - 1));
    await sweep.sweep([KEPT], t0 + UNWANTED_GRACE_MS - 1);
    assert.deepEqual(await filesIn(dir), before, "kept during the grace");
    await sweep.sweep([KEPT], t0 + UNWANTED_GRACE_MS);
    assert.deepEqual(
      await filesIn(dir),
      [
        "README",
        listFilePath("", KEPT),
        listMetaPath("", KEPT),
      ].sort(),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ListFilesSweep: a URL wanted again within the hour keeps its files", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(listFilePath(dir, GONE), "ads.example\n");
    const sweep = new ListFilesSweep(dir, memoryLogger());
    await sweep.sweep([], 0);
    await sweep.sweep([GONE], UNWANTED_GRACE_MS / 2);
    await sweep.sweep([], UNWANTED_GRACE_MS + 1); // unwanted anew: the hour restarts
    assert.deepEqual(await filesIn(dir), [listFilePath("", GONE)]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
