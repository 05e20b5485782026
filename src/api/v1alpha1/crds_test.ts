import assert from "node:assert/strict";
import { join } from "node:path";
import YAML from "yaml";
import { z } from "zod";
import { CRD_TEMPLATES_DIR, renderCrds } from "./crds.ts";
import { toStructuralSchema } from "./structural_schema.ts";

const templatesDir = join(import.meta.dirname!, "../../..", CRD_TEMPLATES_DIR);
const REGENERATE = "run `deno run -A src/api/v1alpha1/crds.ts`";

Deno.test("renderCrds matches the committed chart files", () => {
  for (const [name, text] of renderCrds()) {
    let committed: string | undefined;
    try {
      committed = Deno.readTextFileSync(join(templatesDir, name));
    } catch {
      committed = undefined;
    }
    assert.ok(
      committed === text,
      `${CRD_TEMPLATES_DIR}/${name} is missing or stale: ${REGENERATE}`,
    );
  }
});

Deno.test("renderCrds leaves no stale CRD files in the chart", () => {
  const rendered = new Set(renderCrds().keys());
  const stale = [...Deno.readDirSync(templatesDir)]
    .map((e) => e.name)
    .filter((n) => n.startsWith("kudurru.io_") && !rendered.has(n));
  assert.deepEqual(stale, [], `stale CRD files: ${REGENERATE}`);
});

function crd(plural: string) {
  return YAML.parse(renderCrds().get(`kudurru.io_${plural}.yaml`)!);
}

function openApi(plural: string) {
  return crd(plural).spec.versions[0].schema.openAPIV3Schema;
}

Deno.test("renderCrds writes one CRD per kind with its scope", () => {
  const scopes = Object.fromEntries(
    [...renderCrds().values()].map((t) => YAML.parse(t)).map((
      c,
    ) => [c.spec.names.kind, c.spec.scope]),
  );
  assert.deepEqual(scopes, {
    DNSZone: "Cluster",
    DNSRecordSet: "Namespaced",
    BlockList: "Namespaced",
    ClientGroup: "Namespaced",
    Policy: "Namespaced",
  });
});

Deno.test("renderCrds serves v1alpha1 with a status subresource", () => {
  const version = crd("dnszones").spec.versions[0];
  assert.equal(version.name, "v1alpha1");
  assert.equal(version.served, true);
  assert.equal(version.storage, true);
  assert.deepEqual(version.subresources, { status: {} });
});

Deno.test("renderCrds makes zoneName immutable with a CEL rule", () => {
  const zoneName = openApi("dnszones").properties.spec.properties.zoneName;
  assert.deepEqual(zoneName["x-kubernetes-validations"], [
    { rule: "self == oldSelf", message: "zoneName is immutable" },
  ]);
});

Deno.test("renderCrds defaults DNSZone policy to an empty object", () => {
  const policy = openApi("dnszones").properties.spec.properties.policy;
  assert.deepEqual(policy.default, {});
  assert.equal(policy.properties.queryAccess.default, "allow");
});

Deno.test("renderCrds keeps metadata opaque", () => {
  assert.deepEqual(openApi("policies").properties.metadata, { type: "object" });
});

Deno.test("renderCrds writes structural schemas", () => {
  const forbidden = [
    "$ref",
    "$defs",
    "$schema",
    "anyOf",
    "oneOf",
    "const",
    "propertyNames",
  ];
  for (const [name, text] of renderCrds()) {
    const schema = JSON.stringify(YAML.parse(text).spec.versions[0].schema);
    for (const word of forbidden) {
      assert.ok(!schema.includes(`"${word}"`), `${name} contains ${word}`);
    }
    assert.ok(!schema.includes('"additionalProperties":false'), name);
  }
});

Deno.test("toStructuralSchema refuses unions of objects", () => {
  const schema = z.strictObject({
    a: z.union([
      z.strictObject({ b: z.string() }),
      z.strictObject({ c: z.string() }),
    ]),
  });
  assert.throws(() => toStructuralSchema(schema), /anyOf is not structural/);
});

Deno.test("toStructuralSchema refuses nodes with several types", () => {
  const schema = z.strictObject({ a: z.union([z.string(), z.number()]) });
  assert.throws(() => toStructuralSchema(schema), /needs exactly one type/);
});

Deno.test("toStructuralSchema requires maxItems above items with CEL rules", () => {
  const schema = z.strictObject({
    a: z.array(z.strictObject({ b: z.string() })),
  });
  assert.throws(
    () =>
      toStructuralSchema(
        schema,
        new Map([["a[]", [{ rule: "true", message: "m" }]]]),
      ),
    /needs maxItems/,
  );
});

Deno.test("toStructuralSchema turns const into enum and drops safe-integer bounds", () => {
  const schema = z.strictObject({ v: z.literal("x"), n: z.number().int() });
  assert.deepEqual(toStructuralSchema(schema).properties, {
    v: { type: "string", enum: ["x"] },
    n: { type: "integer" },
  });
});
