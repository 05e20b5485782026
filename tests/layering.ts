/**
 * The import rules of src/ (docs/design.md#layering), as a function of the
 * import graph, so a test can check the tree and, on made-up graphs, that
 * each rule catches what it forbids.
 */
import { dirname, join, normalize } from "node:path";

/** One import: the importing file and the imported one, relative to src/. */
export interface ImportEdge {
  from: string;
  to: string;
}

/** A broken rule, with the import that breaks it. */
export interface LayeringViolation {
  rule: string;
  edge?: ImportEdge;
  detail: string;
}

const SPECIFIER =
  /(?:\bfrom\s*|\bimport\s*\(?\s*|new URL\(\s*)["'](\.{1,2}\/[^"']+)["']/g;

/** Files that only tests load: they may reach across the rules below. */
export function isTestSupport(path: string): boolean {
  return /_test\.ts$/.test(path) || /(^|\/)(testdata|testing)\//.test(path) ||
    /(^|\/)test_[a-z_]+\.ts$/.test(path) || /_testing\.ts$/.test(path);
}

/** Every relative import of every .ts file under `root` (paths relative to `root`). */
export async function readImportGraph(root: string): Promise<ImportEdge[]> {
  const edges: ImportEdge[] = [];
  for await (const file of tsFiles(root)) {
    const text = await Deno.readTextFile(join(root, file));
    for (const match of text.matchAll(SPECIFIER)) {
      // Modules only: data files (lists, examples, deno.json) are no layer.
      if (!match[1]!.endsWith(".ts")) continue;
      const to = normalize(join(dirname(file), match[1]!));
      edges.push({ from: file, to });
    }
  }
  return edges;
}

async function* tsFiles(root: string, dir = ""): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(join(root, dir))) {
    const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* tsFiles(root, path);
    else if (entry.isFile && path.endsWith(".ts")) yield path;
  }
}

/** The top-level folder of a path under src/ ("." for a file at the top). */
export function topFolder(path: string): string {
  const slash = path.indexOf("/");
  return slash === -1 ? "." : path.slice(0, slash);
}

/** The stage a path belongs to ("cache" for stages/cache/x.ts), if any. */
function stageOf(path: string): string | undefined {
  const m = /^stages\/([^/]+)\//.exec(path);
  return m?.[1];
}

const STORE_DRIVER = /^store\/[^/]+\//;

/**
 * The rules, for the production modules of `edges` (test support aside,
 * except for the last rule):
 *
 * - a stage imports no other stage and no store driver;
 * - listeners/ imports no stage folder (only what the data plane offers);
 * - dns/ imports nothing outside dns/: it is the bottom layer;
 * - no cycle between top-level folders;
 * - no folder has a mod.ts barrel: a module imports the file that defines
 *   what it uses, and these rules, not barrels, keep folders apart;
 * - nothing under src/ imports from tests/.
 */
export function layeringViolations(
  edges: readonly ImportEdge[],
): LayeringViolation[] {
  const out: LayeringViolation[] = [];
  const graph = new Map<string, Set<string>>();
  const witness = new Map<string, ImportEdge>();
  for (const edge of edges) {
    const { from, to } = edge;
    if (to.startsWith("../")) {
      if (to.startsWith("../tests/")) {
        out.push({
          rule: "src imports no tests",
          edge,
          detail: `${from} imports ${to}`,
        });
      }
      continue;
    }
    for (const path of [from, to]) {
      if (/(^|\/)mod\.ts$/.test(path)) {
        out.push({
          rule: "no barrels",
          edge,
          detail: `${path}: import the defining file instead of a mod.ts`,
        });
      }
    }
    if (isTestSupport(from)) continue;
    const stage = stageOf(from);
    if (stage !== undefined) {
      const other = stageOf(to);
      if (other !== undefined && other !== stage) {
        out.push({
          rule: "a stage imports no other stage",
          edge,
          detail: `${from} imports ${to}`,
        });
      }
      if (STORE_DRIVER.test(to)) {
        out.push({
          rule: "a stage imports no store driver",
          edge,
          detail: `${from} imports ${to}`,
        });
      }
    }
    if (from.startsWith("listeners/") && stageOf(to) !== undefined) {
      out.push({
        rule: "listeners import no stage",
        edge,
        detail: `${from} imports ${to}`,
      });
    }
    if (from.startsWith("dns/") && !to.startsWith("dns/")) {
      out.push({
        rule: "dns imports nothing above it",
        edge,
        detail: `${from} imports ${to}`,
      });
    }
    const a = topFolder(from), b = topFolder(to);
    if (a !== b) {
      if (!graph.has(a)) graph.set(a, new Set());
      graph.get(a)!.add(b);
      if (!witness.has(`${a} ${b}`)) witness.set(`${a} ${b}`, edge);
    }
  }
  for (const cycle of folderCycles(graph)) {
    const steps = cycle.map((folder, i) => {
      const next = cycle[(i + 1) % cycle.length]!;
      const edge = witness.get(`${folder} ${next}`)!;
      return `${edge.from} → ${edge.to}`;
    });
    out.push({
      rule: "no cycle between top-level folders",
      detail: `${cycle.join(" → ")} → ${cycle[0]}: ${steps.join("; ")}`,
    });
  }
  return out;
}

/** One cycle per strongly connected group of folders (Tarjan), as a path. */
function folderCycles(graph: Map<string, Set<string>>): string[][] {
  const cycles: string[][] = [];
  const seen = new Set<string>();
  for (const start of [...graph.keys()].sort()) {
    if (seen.has(start)) continue;
    const path = findCycle(graph, start);
    if (path === undefined) continue;
    for (const folder of path) seen.add(folder);
    cycles.push(path);
  }
  return cycles;
}

/** A path from `start` back to itself, if there is one (breadth first: the shortest). */
function findCycle(
  graph: Map<string, Set<string>>,
  start: string,
): string[] | undefined {
  const previous = new Map<string, string>();
  const queue = [...(graph.get(start) ?? [])];
  for (const next of queue) previous.set(next, start);
  while (queue.length > 0) {
    const node = queue.shift()!;
    if (node === start) {
      const path: string[] = [];
      let at = previous.get(start)!;
      while (at !== start) {
        path.unshift(at);
        at = previous.get(at)!;
      }
      return [start, ...path];
    }
    for (const next of graph.get(node) ?? []) {
      if (previous.has(next)) continue;
      previous.set(next, node);
      queue.push(next);
    }
  }
  return undefined;
}
