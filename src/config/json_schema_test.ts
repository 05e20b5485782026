import assert from "node:assert/strict";
import { configJsonSchema } from "./json_schema.ts";

type Json = Record<string, unknown>;
const schema = configJsonSchema();

function prop(path: string): Json {
  let cur = schema;
  for (const part of path.split(".")) {
    cur = (cur.properties as Json)[part] as Json;
  }
  return cur;
}

Deno.test("configJsonSchema is draft 2020-12", () => {
  assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
});

Deno.test("configJsonSchema forbids unknown keys", () => {
  assert.equal(schema.additionalProperties, false);
  assert.equal(prop("cache.prefetch").additionalProperties, false);
});

Deno.test("configJsonSchema describes keys with their help and env variable", () => {
  const p = prop("cache.prefetch.threshold");
  assert.match(String(p.description), /refresh before it expires/);
  assert.equal(p["x-kudurru-env"], "KUDURRU_CACHE__PREFETCH__THRESHOLD");
  assert.equal(p.default, 5);
});

Deno.test("configJsonSchema marks host-only keys", () => {
  assert.equal(prop("listeners.api.address")["x-kudurru-hostOnly"], true);
  assert.equal(prop("cache.maxTTL")["x-kudurru-hostOnly"], undefined);
});

Deno.test("configJsonSchema marks secrets writeOnly", () => {
  assert.equal(prop("auth.bootstrap.adminPassword").writeOnly, true);
});

Deno.test("configJsonSchema gives durations a pattern", () => {
  const pattern = new RegExp(String(prop("cache.maxTTL").pattern));
  assert.ok(pattern.test("1h30m"));
  assert.ok(!pattern.test("1day"));
});

Deno.test("configJsonSchema drops defaults that depend on the machine", () => {
  const p = prop("node.dataDir");
  assert.equal(p.default, undefined);
  assert.match(String(p.description), /Default: \/var\/lib\/kudurru as root/);
});

Deno.test("configJsonSchema leaves none of kudurru's meta keys behind", () => {
  const text = JSON.stringify(schema);
  for (
    const key of ["help", "kind", "defaultText", "hostOnly", "restartRequired"]
  ) {
    assert.ok(!text.includes(`"${key}":`), key);
  }
});
