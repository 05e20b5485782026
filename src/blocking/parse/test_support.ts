/**
 * Test helper: parses a body into a list of rules printed compactly
 * ("suffix adblock ads.example @@ $important"; a `$badfilter` line's rule
 * as "off …"). Tests only; the parsers
 * themselves never collect rules.
 */

import assert from "node:assert/strict";
import type { ListFormat, RuleInput } from "../types.ts";
import type { ListParseStats } from "./context.ts";
import { parseList } from "./parse.ts";

export interface Collected {
  rules: string[];
  stats: ListParseStats;
}

export function describeRule(rule: RuleInput): string {
  return [
    rule.kind,
    rule.syntax,
    rule.pattern,
    ...(rule.exception ? ["@@"] : []),
    ...(rule.important ? ["$important"] : []),
  ].join(" ");
}

export function collect(
  body: string,
  format: ListFormat,
  maxRegexes?: number,
): Collected {
  const rules: string[] = [];
  const opts = maxRegexes === undefined ? {} : { maxRegexes };
  const stats = parseList(body, format, {
    rule: (r) => rules.push(describeRule(r)),
    disable: (r) => rules.push(`off ${describeRule(r)}`),
  }, opts);
  return { rules, stats };
}

/** One table row: a body in a format, the rules it gives, what it counts. */
export interface Row {
  why: string;
  format: ListFormat;
  body: string;
  rules: string[];
  invalid?: number;
  unsupported?: number;
  /** Exceptions kept for every query although they carry `$dnstype` & co. */
  broadened?: number;
  title?: string;
}

/** Registers one Deno.test per row. */
export function testRows(rows: Row[]): void {
  for (const row of rows) {
    Deno.test(`parseList ${row.format}: ${row.why}`, () => {
      const { rules, stats } = collect(row.body, row.format);
      assert.deepEqual(rules, row.rules);
      assert.equal(stats.format, row.format);
      assert.equal(stats.rules, row.rules.length);
      assert.equal(
        stats.invalid,
        row.invalid ?? 0,
        `invalid; examples: ${stats.examples.join(" | ")}`,
      );
      assert.equal(
        stats.unsupported,
        row.unsupported ?? 0,
        `unsupported; examples: ${stats.examples.join(" | ")}`,
      );
      assert.equal(stats.broadenedExceptions, row.broadened ?? 0);
      assert.equal(stats.title, row.title);
      assert.equal(
        stats.examples.length,
        Math.min(
          5,
          stats.invalid + stats.unsupported + stats.broadenedExceptions,
        ),
      );
    });
  }
}
