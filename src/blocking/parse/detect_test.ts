/** notAListReason, decodeListBody and the text check parseList runs. */

import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { NotAListError } from "../types.ts";
import { decodeListBody, notAListReason } from "./detect.ts";
import { parseList } from "./parse.ts";

const enc = new TextEncoder();
const LIST = "# Title: t\n||ads.example^\n0.0.0.0 b.example\n";

const NOT_LISTS: Array<[name: string, bytes: Uint8Array, reason: RegExp]> = [
  [
    "doctype",
    enc.encode("<!DOCTYPE html>\n<html><body>404</body></html>"),
    /HTML page/,
  ],
  [
    "html tag",
    enc.encode("<html>\n<head><title>Error</title></head>"),
    /HTML page/,
  ],
  ["head tag", enc.encode("<head><title>x</title></head>"), /HTML page/],
  ["body tag", enc.encode("<BODY>Not found</BODY>"), /HTML page/],
  ["leading whitespace", enc.encode("\r\n\t  <!doctype html><p>"), /HTML page/],
  ["leading BOM", enc.encode("\ufeff<html lang=en>"), /HTML page/],
  [
    "comment before html",
    enc.encode("<!-- generated --><!DOCTYPE html>"),
    /HTML page/,
  ],
  ["gzip", gzipSync(enc.encode(LIST)), /gzip/],
  ["zip", new Uint8Array([0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0]), /zip/],
  ["NUL bytes", enc.encode("ads.example\n\0\0\0other.example\n"), /NUL/],
  [
    "control characters",
    new Uint8Array(200).map((_, i) => (i % 3 === 0 ? 0x01 : 0x61)),
    /control/,
  ],
  [
    "invalid UTF-8 (latin1)",
    new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x66, 0x72, 0x0a]),
    /UTF-8/,
  ],
  [
    "truncated UTF-8 at the end",
    new Uint8Array([...enc.encode("a.example\n"), 0xc3]),
    /UTF-8/,
  ],
];

for (const [name, bytes, reason] of NOT_LISTS) {
  Deno.test(`notAListReason: ${name}`, () => {
    const got = notAListReason(bytes);
    assert.ok(got !== null, "should be rejected");
    assert.match(got, reason);
    assert.throws(() => decodeListBody(bytes), NotAListError);
  });
}

const LISTS: Array<[name: string, text: string]> = [
  ["adblock list", LIST],
  ["empty body", ""],
  ["comments only", "! nothing here\n"],
  ["IDN names", "bücher.example\nпример.рф\n"],
  ["a list mentioning html later", "||ads.example^\n! see <html> docs\n"],
  ["CRLF and tabs", "0.0.0.0\tads.example\r\n\tb.example \r\n"],
];

for (const [name, text] of LISTS) {
  Deno.test(`notAListReason: accepts ${name}`, () => {
    assert.equal(notAListReason(enc.encode(text)), null);
    assert.equal(decodeListBody(enc.encode(text)), text);
  });
}

Deno.test("notAListReason: one Latin-1 byte in a comment costs that line, not the list", () => {
  // Before: "the body is not valid UTF-8 text" for the whole list.
  const bytes = new Uint8Array([
    ...enc.encode("# Gr"),
    0xfc, // "ü" in Latin-1
    ...enc.encode("ße\n"),
    ...enc.encode("0.0.0.0 ads.example\n".repeat(1000)),
  ]);
  assert.equal(notAListReason(bytes), null);
  const rules: string[] = [];
  parseList(decodeListBody(bytes), "auto", {
    rule: (r) => rules.push(r.pattern),
  });
  assert.equal(rules.length, 1000);
});

Deno.test("decodeListBody strips a UTF-8 BOM", () => {
  assert.equal(
    decodeListBody(enc.encode("\ufeffads.example\n")),
    "ads.example\n",
  );
});

Deno.test("parseList throws NotAListError on HTML and binary text, whatever the format", () => {
  const sink = { rule: () => assert.fail("no rule expected") };
  for (
    const format of ["auto", "hosts", "domains", "adblock", "regex"] as const
  ) {
    assert.throws(
      () => parseList("<!doctype html><html></html>", format, sink),
      NotAListError,
    );
    assert.throws(
      () => parseList("\ufeff  <HTML>", format, sink),
      NotAListError,
    );
    assert.throws(
      () => parseList("a.example\n\0b.example", format, sink),
      NotAListError,
    );
    // gzip bytes decoded leniently: control and replacement characters
    const gz = new TextDecoder().decode(gzipSync(enc.encode(LIST.repeat(20))));
    assert.throws(() => parseList(gz, format, sink), NotAListError);
  }
});
