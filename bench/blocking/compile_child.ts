/**
 * Child process: compile time for a list of `--entries N` rules. The list
 * is a body text in memory (as fetched); the tiny line reader streams it
 * into the compiler with one reused RuleInput, as a parser does. The
 * reader's own time (measured alone, into a sink that does nothing) is
 * subtracted, so "compile" is the compiler's share: rule() for every rule
 * plus finish(). The digest alone (createRuleDigest, reader included) is
 * timed too, since a refresh computes it before deciding to compile.
 *
 *   deno run -A --v8-flags=--expose-gc bench/blocking/compile_child.ts --entries 1000000
 */

import { createListCompiler } from "../../src/blocking/matcher/compiler.ts";
import { createRuleDigest } from "../../src/blocking/matcher/digest.ts";
import {
  collectGarbage,
  entriesArg,
  listBody,
  loadReal,
  META,
  parseBody,
  report,
} from "./dataset.ts";

const entries = entriesArg();
const body = listBody(await loadReal(), entries);
let rules = 0;
parseBody(body, { rule: () => rules++ }); // warm the reader up
await collectGarbage();

const t0 = performance.now();
parseBody(body, { rule: () => {} });
const readerSeconds = (performance.now() - t0) / 1000;
await collectGarbage();

const t1 = performance.now();
const compiler = createListCompiler(META);
parseBody(body, compiler);
const data = compiler.finish();
const totalSeconds = (performance.now() - t1) / 1000;
await collectGarbage();

const t2 = performance.now();
const digest = createRuleDigest(META);
parseBody(body, digest);
const same = digest.digest() === data.digest;
const digestSeconds = (performance.now() - t2) / 1000; // with the reader

const compileSeconds = totalSeconds - readerSeconds;
report({
  figure: "compile",
  entries,
  rules,
  ruleCount: data.ruleCount,
  readerSeconds,
  totalSeconds,
  compileSeconds,
  secondsPerMillion: compileSeconds / (rules / 1e6),
  digestSeconds,
  digestMatches: same,
});
