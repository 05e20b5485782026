import assert from "node:assert/strict";
import { compileHostnameGlob } from "./hostname_glob.ts";

Deno.test("hostname globs", async (t) => {
  const cases: [glob: string, name: string, want: boolean][] = [
    ["tv.lan", "tv.lan", true],
    ["tv.lan", "tvxlan", false], // the dot is literal
    ["TV.lan.", "tv.LAN", true],
    ["*.lan", "a.b.lan", true],
    ["*.lan", "lan", false],
    ["pc-?", "pc-1", true],
    ["pc-?", "pc-12", false],
    ["pc-[0-9]", "pc-7", true],
    ["pc-[0-9]", "pc-a", false],
    ["pc-[ab-]", "pc--", true],
    ["pc-[", "pc-[", true], // unclosed: literal
    ["a+b", "aab", false],
  ];
  for (const [glob, name, want] of cases) {
    await t.step(`${glob} vs ${name}`, () => {
      assert.equal(compileHostnameGlob(glob).test(name), want);
    });
  }
});
