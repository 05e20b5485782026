import assert from "node:assert/strict";
import { translatePosixClasses } from "./posix_classes.ts";

function translated(source: string): string {
  const result = translatePosixClasses(source);
  assert.ok(result.ok, result.ok ? "" : result.why);
  return result.source;
}

Deno.test("translatePosixClasses writes named classes out inside brackets", () => {
  assert.equal(
    translated("^ad[[:digit:]]+\\.example$"),
    "^ad[0-9]+\\.example$",
  );
  assert.equal(translated("[^[:alnum:]_-]"), "[^a-zA-Z0-9_-]");
  assert.equal(translated("[[:lower:][:digit:]]"), "[a-z0-9]");
  assert.equal(
    translated("[]x[:upper:]]"),
    "[]xA-Z]",
    "a leading ] is a member",
  );
});

Deno.test("translatePosixClasses leaves what is not a named class in a bracket alone", () => {
  for (const source of ["^ads?\\.", "\\[:digit:\\]", "a[:b", "[x]:digit:]"]) {
    assert.equal(translated(source), source);
  }
});

Deno.test("translated classes match what POSIX means", () => {
  const digits = new RegExp(translated("^ad[[:digit:]]+\\.example$"));
  assert.ok(digits.test("ad5.example"));
  assert.ok(!digits.test("ad:].example"), "not the JavaScript reading");
  const punct = new RegExp(`^[${translated("[[:punct:]]").slice(1, -1)}]+$`);
  assert.ok(punct.test("!-/:@[`{~"));
  assert.ok(!punct.test("a"));
});

Deno.test("translatePosixClasses names an unknown class", () => {
  assert.deepEqual(translatePosixClasses("[[:digits:]]"), {
    ok: false,
    why: "unknown character class [:digits:]",
  });
});
