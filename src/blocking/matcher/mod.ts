/**
 * The compiled matchers of the blocking engine
 * (docs/design.md#blocking-engine): compile a list's rules into shared
 * memory, open it in any thread, ask it about names.
 *
 *   const compiler = createListCompiler({ key, name, mode }, { warn });
 *   parseList(body, format, compiler);          // src/blocking/parse
 *   const data = compiler.finish();             // post it to workers as is
 *   openCompiledList(data).check("ads.example.com.");
 *
 * createRuleDigest() computes the digest finish() would give, without
 * compiling, to skip lists whose rules did not change.
 */

export {
  type CompileOptions,
  compileRules,
  createListCompiler,
  type ListCompiler,
  type ListMeta,
} from "./compiler.ts";
export { createRuleDigest, DEFAULT_REGEX_HARD_CAP } from "./digest.ts";
export { openCompiledList } from "./open.ts";
