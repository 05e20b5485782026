/**
 * A real published list (HaGeZi light, adblock syntax, ~122k names; see
 * /work/shared/data/blocklists/README.md) parsed and compiled by the real
 * parser and compiler, read from the shared data folder, never copied.
 */
import { createListCompiler } from "../../../blocking/matcher/compiler.ts";
import { parseList } from "../../../blocking/parse/parse.ts";
import type { CompiledListData } from "../../../blocking/types.ts";

export const REAL_LIST_URL = new URL(
  "../../../../../shared/data/blocklists/adblock_light.txt",
  import.meta.url,
);

export interface RealList {
  data: CompiledListData;
  /** Every `||name^` rule's name, in file order. */
  names: string[];
}

/** Parses and compiles the list as `key`. */
export async function loadRealList(
  key: string,
  name: string,
): Promise<RealList> {
  const body = await Deno.readTextFile(REAL_LIST_URL);
  const compiler = createListCompiler({ key, name, mode: "block" });
  parseList(body, "adblock", compiler);
  const names = [...body.matchAll(/^\|\|([^\^\s]+)\^$/gm)].map((m) => m[1]!);
  return { data: compiler.finish(), names };
}
