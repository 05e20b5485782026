/** List file names and the sidecar that vouches for a body. */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { readListMeta, writeListMeta } from "./list_meta.ts";
import {
  listFilePath,
  listMetaPath,
  TEMP_MARKER,
  tempPathFor,
} from "./list_files.ts";

const URL_A = "https://big.oisd.nl/";

Deno.test("a list file is named by the sha256 hex of its URL", () => {
  const hex = createHash("sha256").update(URL_A).digest("hex");
  assert.equal(listFilePath("/var/lists", URL_A), join("/var/lists", hex));
  assert.equal(
    listMetaPath("/var/lists", URL_A),
    join("/var/lists", hex) + ".meta.json",
  );
  assert.notEqual(listFilePath("/d", URL_A), listFilePath("/d", URL_A + "x"));
  const a = tempPathFor("/d/x");
  assert.ok(a.startsWith("/d/x" + TEMP_MARKER));
  assert.notEqual(a, tempPathFor("/d/x"));
});

Deno.test("a sidecar counts only next to a body of its size", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-meta-" });
  try {
    const meta = {
      url: URL_A,
      digest: "ab".repeat(32),
      size: 4,
      fetchedAt: "2025-07-01T10:00:00.000Z",
      etag: '"x"',
      counts: {},
    };
    await writeListMeta(dir, meta);
    assert.equal(await readListMeta(dir, URL_A), undefined, "no body");
    await Deno.writeTextFile(listFilePath(dir, URL_A), "a.b\n");
    assert.deepEqual(await readListMeta(dir, URL_A), meta);
    await Deno.writeTextFile(listFilePath(dir, URL_A), "a.bc\n");
    assert.equal(await readListMeta(dir, URL_A), undefined, "other size");
    await Deno.writeTextFile(listMetaPath(dir, URL_A), "{not json");
    assert.equal(await readListMeta(dir, URL_A), undefined, "garbage");
    const names = [];
    for await (const e of Deno.readDir(dir)) names.push(e.name);
    assert.ok(names.every((n) => !n.includes(TEMP_MARKER)), names.join());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
