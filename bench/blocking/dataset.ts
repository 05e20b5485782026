/**
 * The benchmark lists: the real lists in ../shared/data/blocklists/ (read
 * with the tiny test reader, since the real parser is written elsewhere)
 * topped up with generated names to the size asked for. Deterministic: the
 * same size gives the same rules in every child process.
 *
 * Generated names look like the real ones: 40 % a new registrable domain
 * under a real TLD, 30 % a new name under a real registrable domain, 30 % a
 * new name under a real listed name; 60 % suffix rules (`||x^`), 40 % exact
 * (plain domains). Random labels are 3-14 characters of [a-z0-9-].
 *
 * Everything is kept as text (one string of rule lines) and streamed with
 * one reused RuleInput, so the benchmark's own data does not inflate the
 * heap it measures.
 */

import type { RuleInput, RuleSink } from "../../src/blocking/types.ts";
import {
  BLOCKLISTS,
  forEachRule,
} from "../../src/blocking/matcher/testdata/list_reader.ts";
import { bytes } from "../../src/blocking/matcher/buffers.ts";

/** The real lists that go into every benchmark list. */
export const REAL_LISTS = [
  "adblock_light.txt",
  "3p_stevenblack.domains.txt",
  "3p_adguarddns.hosts.txt",
  "3p_easylist.adblock.txt",
];

/** A small, fast, seeded PRNG (mulberry32), returning [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LABEL_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789";

/** A random DNS label of `min`..`max` characters (hyphens only inside). */
export function randomLabel(
  rand: () => number,
  min: number,
  max: number,
): string {
  const length = min + Math.floor(rand() * (max - min + 1));
  let label = "";
  for (let i = 0; i < length; i++) {
    const inside = i > 0 && i < length - 1;
    label += inside && rand() < 0.04
      ? "-"
      : LABEL_CHARS[Math.floor(rand() * 36)];
  }
  return label;
}

/**
 * ASCII text appended into a growing byte buffer, outside the JS heap
 * (allocated like the compiler's staging, so it is returned when freed).
 */
class TextBuilder {
  private bytes = bytes(1 << 20);
  private length = 0;

  line(text: string): void {
    if (this.length + text.length + 1 > this.bytes.length) {
      const grown = bytes((this.length + text.length + 1) * 2);
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    if (this.length > 0) this.bytes[this.length++] = 10;
    for (let i = 0; i < text.length; i++) {
      this.bytes[this.length++] = text.charCodeAt(i);
    }
  }

  text(): string {
    return new TextDecoder().decode(this.bytes.subarray(0, this.length));
  }
}

/** The real rules as text: one `||x^` (suffix) or `x` (exact) line each. */
export interface RealNames {
  text: string;
  /** Distinct rules among the lines: what the compiler stores. */
  distinct: number;
}

/** Reads the real lists once. */
export async function loadReal(): Promise<RealNames> {
  const out = new TextBuilder();
  const seen = new Set<string>();
  for (const file of REAL_LISTS) {
    forEachRule(await Deno.readTextFile(new URL(file, BLOCKLISTS)), (r) => {
      const line = r.kind === "suffix" ? `||${r.pattern}^` : r.pattern;
      seen.add(line);
      out.line(line);
    });
  }
  return { text: out.text(), distinct: seen.size };
}

/** A random real name (lines are picked by a random character in them). */
export function realName(real: RealNames, rand: () => number): string {
  const at = Math.floor(rand() * real.text.length);
  const start = real.text.lastIndexOf("\n", at) + 1;
  let end = real.text.indexOf("\n", at);
  if (end < 0) end = real.text.length;
  return real.text.charCodeAt(start) === 0x7c
    ? real.text.slice(start + 2, end - 1)
    : real.text.slice(start, end);
}

/** A generated name (see the file comment). */
export function generatedName(real: RealNames, rand: () => number): string {
  const r = rand();
  const name = realName(real, rand);
  if (r < 0.4) {
    return randomLabel(rand, 5, 14) + name.slice(name.lastIndexOf("."));
  }
  if (r < 0.7) {
    const tld = name.lastIndexOf(".");
    const registrable = tld < 0
      ? name
      : name.slice(name.lastIndexOf(".", tld - 1) + 1);
    return randomLabel(rand, 3, 12) + "." + registrable;
  }
  return randomLabel(rand, 3, 10) + "." + name;
}

/** Reads rule lines (`||x^` or `x`) into `sink`, one reused object. */
export function parseBody(body: string, sink: RuleSink): void {
  const rule: RuleInput = {
    kind: "suffix",
    pattern: "",
    syntax: "adblock",
    exception: false,
    important: false,
  };
  let start = 0;
  while (start < body.length) {
    let end = body.indexOf("\n", start);
    if (end < 0) end = body.length;
    const suffix = body.charCodeAt(start) === 0x7c; // "|"
    rule.kind = suffix ? "suffix" : "exact";
    rule.syntax = suffix ? "adblock" : "domain";
    rule.pattern = suffix
      ? body.slice(start + 2, end - 1)
      : body.slice(start, end);
    sink.rule(rule);
    start = end + 1;
  }
}

/**
 * Streams a list of about `entries` distinct rules into `sink`: the real
 * rules, then generated ones, with one reused RuleInput (as a parser may).
 */
export function streamList(
  real: RealNames,
  entries: number,
  sink: RuleSink,
): void {
  parseBody(real.text, sink);
  const rand = prng(0x5eed ^ entries);
  const rule: RuleInput = {
    kind: "suffix",
    pattern: "",
    syntax: "adblock",
    exception: false,
    important: false,
  };
  for (let i = real.distinct; i < entries; i++) {
    const suffix = rand() < 0.6;
    rule.kind = suffix ? "suffix" : "exact";
    rule.syntax = suffix ? "adblock" : "domain";
    rule.pattern = generatedName(real, rand);
    sink.rule(rule);
  }
}

/** The list as a body text of rule lines, as a fetched list would be. */
export function listBody(real: RealNames, entries: number): string {
  const out = new TextBuilder();
  streamList(real, entries, {
    rule: (r) => out.line(r.kind === "suffix" ? `||${r.pattern}^` : r.pattern),
  });
  return out.text();
}

/**
 * Collects garbage until RSS settles. "reduce" asks V8 for a memory-reducing
 * collection (flavor "last-resort": it also shrinks the young generation and
 * returns pooled pages), what V8's memory reducer does on its own once a
 * process goes quiet; "plain" is a forced major GC, which leaves the heap
 * at its high-water size. Dead ArrayBuffers' memory is freed by a background
 * sweeper after a GC, hence the pauses.
 */
export async function collectGarbage(
  how: "reduce" | "plain" = "reduce",
): Promise<void> {
  const gc = (globalThis as { gc?: (o?: unknown) => void }).gc;
  if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");
  for (let i = 0; i < 5; i++) {
    gc(
      how === "reduce"
        ? { type: "major", execution: "sync", flavor: "last-resort" }
        : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Prints one JSON result line on stdout (the runner reads the last line). */
export function report(result: Record<string, unknown>): void {
  Deno.stdout.writeSync(
    new TextEncoder().encode(JSON.stringify(result) + "\n"),
  );
}

/** `--entries N` from the child's arguments. */
export function entriesArg(): number {
  const i = Deno.args.indexOf("--entries");
  const n = Number(i >= 0 ? Deno.args[i + 1] : NaN);
  if (!Number.isInteger(n) || n < 1 || n > 20_000_000) {
    throw new Error("usage: --entries N (1..20,000,000)");
  }
  return n;
}

export const META = { key: "bench/list", name: "list", mode: "block" } as const;
