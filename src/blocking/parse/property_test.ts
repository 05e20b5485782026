/**
 * Property tests (fast-check): whatever the text, parseList only ever
 * throws NotAListError, its counters add up, and every rule it emits is
 * well formed (names normalised, regexes compile).
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { type ListFormat, NotAListError, type RuleInput } from "../types.ts";
import { decodeListBody, notAListReason } from "./detect.ts";
import { normalizeName } from "./names.ts";
import { parseList } from "./parse.ts";

const FORMATS: ListFormat[] = ["auto", "hosts", "domains", "adblock", "regex"];

/** Pieces of every syntax, so random lines hit the interesting branches. */
const FRAGMENT = fc.oneof(
  fc.constantFrom(
    "||",
    "@@",
    "^",
    "$",
    "$important",
    "$third-party",
    ",",
    "|",
    "/",
    "*",
    "*.",
    "#",
    "##",
    "#@#",
    "!",
    " ",
    "\t",
    "\r",
    ".",
    "..",
    "0.0.0.0 ",
    "127.0.0.1 ",
    ":: ",
    "192.0.2.1 ",
    "::1",
    "[",
    "]",
    "ads",
    "example",
    "com",
    "ADS",
    "Example.",
    "xn--",
    "bücher",
    "ß",
    "\u3002",
    "(",
    ")",
    "\\",
    "?",
    "+",
    "{2}",
    "=",
    "localhost",
    "Title:",
    "%",
    ";querytype=A",
    "\ufeff",
    "<html>",
  ),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: "binary", maxLength: 4 }),
);
const LINE = fc.array(FRAGMENT, { maxLength: 8 }).map((parts) =>
  parts.join("")
);
const BODY = fc.oneof(
  fc.array(LINE, { maxLength: 30 }).map((lines) => lines.join("\n")),
  fc.string({ unit: "binary", maxLength: 300 }),
);

function checkRule(rule: RuleInput): void {
  if (rule.kind === "regex") {
    assert.equal(rule.syntax, "regex");
    new RegExp(rule.pattern); // throws if the parser let a bad one through
  } else {
    assert.notEqual(rule.syntax, "regex");
    // Independent of normalizeName: lowercase ASCII labels (or IPv6), no empty label.
    assert.match(
      rule.pattern,
      /^([a-z0-9_-]{1,63}(\.[a-z0-9_-]{1,63})*|[0-9a-f:.]*:[0-9a-f:.]*)$/,
    );
    assert.ok(rule.pattern.length <= 253);
    assert.equal(
      normalizeName(rule.pattern),
      rule.pattern,
      `not normalised: ${rule.pattern}`,
    );
  }
}

Deno.test("property: parseList throws nothing but NotAListError, and its counts add up", () => {
  fc.assert(
    fc.property(
      BODY,
      fc.constantFrom(...FORMATS),
      fc.nat({ max: 3 }),
      (body, format, maxRegexes) => {
        let emitted = 0;
        const sink = {
          rule(rule: RuleInput) {
            emitted++;
            checkRule(rule);
          },
        };
        let stats;
        try {
          stats = parseList(body, format, sink, { maxRegexes });
        } catch (err) {
          if (err instanceof NotAListError) return;
          throw err;
        }
        assert.equal(stats.rules, emitted);
        assert.ok(stats.examples.length <= 5);
        assert.equal(
          stats.examples.length,
          Math.min(5, stats.invalid + stats.unsupported),
        );
        if (format !== "auto") assert.equal(stats.format, format);
        const lines = body.split("\n").length;
        assert.ok(
          stats.invalid + stats.unsupported <= lines * 8,
          "at most a few counts per line",
        );
      },
    ),
    { numRuns: 400 },
  );
});

Deno.test("property: notAListReason and decodeListBody never fail on arbitrary bytes", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
      const reason = notAListReason(bytes);
      if (reason === null) {
        assert.equal(typeof decodeListBody(bytes), "string");
      } else {
        assert.throws(() => decodeListBody(bytes), NotAListError);
      }
    }),
    { numRuns: 300 },
  );
});
