import assert from "node:assert/strict";
import { DecodeCache } from "./decode_cache.ts";
import { decodeYaml } from "./decode.ts";

const TEXT =
  "apiVersion: kudurru.io/v1alpha1\nkind: ClientGroup\nmetadata: { name: a }\nspec: {}\n";

Deno.test("decode cache parses a file again only when its text changed", () => {
  const cache = new DecodeCache();
  let parses = 0;
  const decode = (text: string) => () => {
    parses++;
    return decodeYaml("objects.d/a.yaml", text);
  };
  cache.decode("objects.d/a.yaml", TEXT, decode(TEXT));
  cache.decode("objects.d/a.yaml", TEXT, decode(TEXT));
  assert.equal(parses, 1);
  cache.decode(
    "objects.d/a.yaml",
    TEXT + "# edited\n",
    decode(TEXT + "# edited\n"),
  );
  assert.equal(parses, 2);
});

Deno.test("decode cache hands out copies that later steps may change", () => {
  const cache = new DecodeCache();
  const first = cache.decode("s", TEXT, () => decodeYaml("s", TEXT));
  (first.objects[0]!.object.spec as Record<string, unknown>).clients = [
    "changed",
  ];
  const second = cache.decode("s", TEXT, () => decodeYaml("s", TEXT));
  assert.deepEqual(second.objects[0]!.object.spec, {});
});

Deno.test("decode cache forgets files that were not read", () => {
  const cache = new DecodeCache();
  let parses = 0;
  const decode = () => (parses++, decodeYaml("s", TEXT));
  cache.decode("s", TEXT, decode);
  cache.retain(new Set());
  cache.decode("s", TEXT, decode);
  assert.equal(parses, 2);
});
