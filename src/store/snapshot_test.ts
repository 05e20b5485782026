import assert from "node:assert/strict";
import { parseObjectList } from "./snapshot.ts";

Deno.test("snapshot parseObjectList flattens Lists across documents", () => {
  const text = [
    "apiVersion: v1",
    "kind: List",
    "items:",
    "  - {kind: A, metadata: {name: a}}",
    "  - {kind: B, metadata: {name: b}}",
    "---",
    "kind: C",
    "metadata: {name: c}",
    "---",
  ].join("\n");
  assert.deepEqual(
    parseObjectList(text).map((o) => (o as { kind: string }).kind),
    ["A", "B", "C"],
  );
});

Deno.test("snapshot parseObjectList rejects duplicate keys naming the document", () => {
  assert.throws(
    () => parseObjectList("kind: A\n---\nkind: B\nkind: C\n"),
    /^Error: Cannot parse restore input: document 2: /,
  );
});

Deno.test("snapshot parseObjectList rejects a List without items", () => {
  assert.throws(() => parseObjectList("kind: List\n"), /List has no items/);
});
