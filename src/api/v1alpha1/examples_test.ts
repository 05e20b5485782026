/** The object examples in docs/examples validate as they are written. */
import assert from "node:assert/strict";
import YAML from "yaml";
import { validateObject } from "./validate.ts";

Deno.test("docs/examples/zone-transfers.yaml holds valid objects", async () => {
  const text = await Deno.readTextFile(
    new URL("../../../docs/examples/zone-transfers.yaml", import.meta.url),
  );
  const docs = YAML.parseAllDocuments(text).map((d) => d.toJS()).filter((o) =>
    o !== null
  );
  assert.equal(docs.length, 3);
  for (const doc of docs) {
    const result = validateObject(doc);
    assert.ok(result.ok, JSON.stringify(result));
  }
});
