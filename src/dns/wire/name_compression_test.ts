import assert from "node:assert/strict";
import { CompressionTable, toWireName } from "./name_compression.ts";

Deno.test("toWireName splits a name into labels and suffix keys", () => {
  assert.deepEqual(toWireName("WWW.Example."), {
    labels: ["WWW", "Example"],
    keys: ["\x03www\x07example", "\x07example"],
  });
});

Deno.test("toWireName gives escaped and plain spellings the same keys", () => {
  assert.deepEqual(
    toWireName("\\065b.example.").keys,
    toWireName("ab.EXAMPLE.").keys,
  );
});

Deno.test("toWireName keeps a dot inside a label apart from a separator", () => {
  assert.notEqual(toWireName("a\\.b.").keys[0], toWireName("a.b.").keys[0]);
});

Deno.test("toWireName rejects invalid names", async (t) => {
  const rows = [
    "a..b.",
    `${"x".repeat(64)}.`,
    "a b.",
    "é.",
    `${"abc.".repeat(64)}`,
  ];
  for (const name of rows) {
    await t.step(JSON.stringify(name), () => {
      assert.throws(() => toWireName(name, false), TypeError);
    });
  }
});

Deno.test("CompressionTable forgets suffixes added after a mark", () => {
  const table = new CompressionTable();
  table.add("a", 12);
  const mark = table.mark();
  table.add("b", 40);
  table.rollback(mark);
  assert.deepEqual([table.find("a"), table.find("b")], [12, undefined]);
});

Deno.test("CompressionTable ignores offsets beyond pointer range", () => {
  const table = new CompressionTable();
  table.add("a", 0x4000);
  assert.equal(table.find("a"), undefined);
});
