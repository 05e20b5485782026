import assert from "node:assert/strict";
import { expandVariables } from "./expand_vars.ts";

const env: Record<string, string> = { HOSTNAME: "node-a", EMPTY: "" };
const lookup = (name: string) => env[name];

Deno.test("expandVariables replaces references in nested strings", () => {
  const got = expandVariables({
    node: { name: "${HOSTNAME}" },
    list: ["x-${HOSTNAME}"],
  }, lookup);
  assert.deepEqual(got.value, { node: { name: "node-a" }, list: ["x-node-a"] });
});

Deno.test("expandVariables uses the fallback for unset or empty variables", () => {
  const got = expandVariables(["${NOPE:-one}", "${EMPTY:-two}"], lookup);
  assert.deepEqual(got.value, ["one", "two"]);
});

Deno.test("expandVariables keeps a literal ${ written as $${", () => {
  assert.equal(expandVariables("$${HOSTNAME}", lookup).value, "${HOSTNAME}");
});

Deno.test("expandVariables reports unset variables with their path", () => {
  const got = expandVariables({ a: [1, "${NOPE}"] }, lookup);
  assert.deepEqual(got.unset, [{ path: ["a", 1], name: "NOPE" }]);
});

Deno.test("expandVariables leaves numbers and booleans alone", () => {
  assert.deepEqual(expandVariables({ n: 5, b: true }, lookup).value, {
    n: 5,
    b: true,
  });
});
