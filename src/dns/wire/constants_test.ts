import assert from "node:assert/strict";
import { TYPE, typeFromName, typeName } from "./constants.ts";

Deno.test("typeName gives mnemonics and TYPEnnn for the rest", async (t) => {
  const rows: [number, string][] = [
    [1, "A"],
    [65, "HTTPS"],
    [257, "CAA"],
    [41, "OPT"],
    [65280, "TYPE65280"],
    [0, "TYPE0"],
  ];
  for (const [code, name] of rows) {
    await t.step(
      `${code} is ${name}`,
      () => assert.equal(typeName(code), name),
    );
  }
});

Deno.test("typeFromName reads mnemonics and TYPEnnn", async (t) => {
  const rows: [string, number | undefined][] = [
    ["AAAA", 28],
    ["aaaa", 28],
    ["Svcb", 64],
    ["TYPE65280", 65280],
    ["type1", 1],
    ["TYPE65536", undefined],
    ["TYPE007", undefined],
    ["AAA", undefined],
    ["constructor", undefined],
  ];
  for (const [name, code] of rows) {
    await t.step(
      `${name} is ${code}`,
      () => assert.equal(typeFromName(name), code),
    );
  }
});

Deno.test("typeFromName inverts typeName for every known type", () => {
  for (const code of Object.values(TYPE)) {
    assert.equal(typeFromName(typeName(code)), code);
  }
});
