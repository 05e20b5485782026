import assert from "node:assert/strict";
import YAML from "yaml";
import { checkExport, markExport } from "./export_marker.ts";

// The block scalar is the hard case: cut anywhere, it still parses.
const LIST = YAML.stringify({
  apiVersion: "v1",
  kind: "List",
  items: [
    { kind: "DNSZone", metadata: { name: "a" } },
    {
      kind: "BlockList",
      metadata: { name: "starter" },
      spec: { inline: "ads.example\ntracker.example\namazon-adsystem.com\n" },
    },
    { kind: "Policy", metadata: { name: "kids" } },
  ],
});

Deno.test("checkExport accepts a whole export", () => {
  assert.equal(checkExport(markExport(LIST, 3), "x"), "complete");
});

Deno.test("checkExport refuses an export cut short at any byte", () => {
  const whole = markExport(LIST, 3);
  // Cutting only the final newline leaves the end line whole: that is complete.
  for (let n = 1; n < whole.length - 1; n++) {
    assert.throws(
      () => checkExport(whole.slice(0, n), '"backup.yaml"'),
      /^Error: Cannot use "backup\.yaml": it is cut short.*probably written on a full disk/,
      `cut at byte ${n} of ${whole.length}`,
    );
  }
});

Deno.test("checkExport counts the items found in a cut-off export", () => {
  const whole = markExport(LIST, 3);
  const cut = whole.slice(0, whole.indexOf("  - kind: Policy"));
  assert.throws(
    () => checkExport(cut, "standard input"),
    /^Error: Cannot use standard input: it is cut short: 3 items expected, 2 found \(the last may be incomplete\), and its last line is not "# end of kudurru export: 3 items"; it was probably written on a full disk or copied incompletely: use an earlier backup, or export again$/,
  );
});

Deno.test("checkExport refuses an edited export and says how to take it", () => {
  const whole = markExport(LIST, 3);
  const edited = whole.replace(/ {2}- kind: Policy\n.*\n.*\n/, "");
  assert.throws(
    () => checkExport(edited, '"b.yaml"'),
    /^Error: Cannot use "b\.yaml": its first line promises 3 items, but it holds 2: it was edited after the export; to use it anyway, delete its first line/,
  );
  const firstLineDeleted = edited.slice(edited.indexOf("\n") + 1);
  assert.equal(checkExport(firstLineDeleted, '"b.yaml"'), "unmarked");
});

Deno.test("checkExport takes a file without the marker lines as it is", () => {
  assert.equal(checkExport(LIST, "x"), "unmarked");
  assert.equal(checkExport("", "x"), "unmarked");
});

Deno.test("checkExport accepts an export whose line ends became CRLF", () => {
  const crlf = markExport(LIST, 3).replaceAll("\n", "\r\n");
  assert.equal(checkExport(crlf, "x"), "complete");
});

Deno.test("markExport keeps the file a plain kind: List", () => {
  const marked = markExport(LIST, 1);
  assert.deepEqual(YAML.parse(marked), YAML.parse(LIST));
  assert.match(marked, /^# kudurru export: 1 item, ending with the line/);
  assert.match(marked, /\n# end of kudurru export: 1 item\n$/);
});
