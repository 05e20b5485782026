/**
 * What a hostile name costs a regex rule that backtracks exponentially,
 * with the V8 flags kudurru runs with (src/blocking/parse/regex_engine.ts):
 * µs per test() of each expression on `a` × n + `!`.
 *
 *   deno run --v8-flags=<REGEX_V8_FLAGS> bench/blocking/regex_fallback.ts
 *
 * Without the flags the first rows take seconds each (they double per
 * letter), so it refuses to run.
 */
import { linearEngineAvailable } from "../../src/blocking/parse/regex_engine.ts";

function print(text: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(text + "\n"));
}

if (!linearEngineAvailable()) {
  print("run with --v8-flags=<REGEX_V8_FLAGS> (regex_engine.ts)");
  Deno.exit(1);
}
const EXPRESSIONS = [
  "^(a|a)+$",
  "^(?:[a-z0-9]+-?)+x$",
  "^([a-z]|[a-z0-9])+$",
  "^[a-z.]*[a-z.]*[a-z.]*[a-z.]*[a-z.]*x$",
  "^(.+[_.-])?adse?rv(er?|ice)?s?[0-9]*[_.-]", // an ordinary Pi-hole rule
];
const RUNS = 100;
for (const source of EXPRESSIONS) {
  const re = new RegExp(source);
  const row = [source.padEnd(42)];
  for (const n of [40, 250]) {
    const name = "a".repeat(n) + "!";
    const started = performance.now();
    for (let i = 0; i < RUNS; i++) re.test(name);
    const micros = (performance.now() - started) * 1000 / RUNS;
    row.push(`n=${n}: ${micros.toFixed(1).padStart(7)} µs`);
  }
  print(row.join("  "));
}
