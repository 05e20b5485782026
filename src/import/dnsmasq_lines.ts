/**
 * Reading dnsmasq configuration as dnsmasq does (dnsmasq(8), CONFIG FILE and
 * `--conf-file`/`--conf-dir`): one `option[=value]` per line, `#` comments,
 * quoted parts, and the files a configuration includes, followed with a
 * depth bound and a seen-set so an include loop ends. Each option line keeps
 * its file and line number, so the import report can point at it.
 */
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { ReadFile } from "./import_result.ts";

/** One active line: `option=value`, with the value split on commas. */
export interface OptionLine {
  file: string;
  line: number;
  option: string;
  /** The value after `=`, comment cut off, quotes kept (for the servers parser). */
  raw: string;
  /** The value split on unquoted commas, quotes removed, each part trimmed. */
  fields: string[];
}

/** A problem with a file as a whole (unreadable, include too deep, a loop). */
export interface FileProblem {
  where: string;
  what: string;
  detail: string;
}

/** What the walk over the files gives. */
export interface ReadConfig {
  lines: OptionLine[];
  problems: FileProblem[];
  /** Files read, in order. */
  files: string[];
}

/** Includes nested deeper than this are not followed (dnsmasq has no limit; loops need one). */
export const MAX_INCLUDE_DEPTH = 8;

/** Escapes dnsmasq decodes between quotes (dnsmasq(8), CONFIG FILE). */
const QUOTED_ESCAPES: Record<string, string> = {
  "\\": "\\",
  '"': '"',
  t: "\t",
  e: "\x1b",
  b: "\b",
  r: "\r",
  n: "\n",
};

/**
 * A line without its comment: `#` at the start or after whitespace, outside
 * double quotes, starts one (a `#` right after an address is its port).
 * Returns undefined when a quote is not closed.
 */
export function stripComment(raw: string): string | undefined {
  let out = "";
  let quoted = false;
  let afterSpace = true;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (quoted && ch === "\\" && i + 1 < raw.length) {
      out += ch + raw[i + 1];
      i++;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === "#" && afterSpace) break;
    afterSpace = !quoted && /\s/.test(ch);
    out += ch;
  }
  return quoted ? undefined : out.trim();
}

/** Splits a value on commas outside quotes; quotes go, escapes are decoded. */
export function splitFields(value: string): string[] {
  const fields: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (quoted && ch === "\\") {
      const escaped = QUOTED_ESCAPES[value[i + 1] ?? ""];
      if (escaped !== undefined) {
        current += escaped;
        i++;
        continue;
      }
    }
    if (ch === '"') quoted = !quoted;
    else if (ch === "," && !quoted) {
      fields.push(current.trim());
      current = "";
    } else current += ch;
  }
  fields.push(current.trim());
  return fields;
}

/** Parses one file's text into option lines; bad lines go to `problems`. */
export function parseLines(
  text: string,
  file: string,
  problems: FileProblem[],
): OptionLine[] {
  const lines: OptionLine[] = [];
  text.split(/\r?\n/).forEach((rawLine, index) => {
    const where = `${file}:${index + 1}`;
    const line = stripComment(rawLine);
    if (line === undefined) {
      problems.push({
        where,
        what: rawLine.trim(),
        detail: 'a quote (") is not closed',
      });
      return;
    }
    if (line === "") return;
    const eq = line.indexOf("=");
    const option = (eq < 0 ? line : line.slice(0, eq)).trim();
    const raw = eq < 0 ? "" : line.slice(eq + 1).trim();
    lines.push({
      file,
      line: index + 1,
      option,
      raw,
      fields: raw === "" ? [] : splitFields(raw),
    });
  });
  return lines;
}

/** Whether a directory entry is read, as `--conf-dir` decides (dnsmasq(8)). */
export function confDirTakes(name: string, filters: string[]): boolean {
  if (name.endsWith("~") || name.startsWith(".")) return false;
  if (name.length > 1 && name.startsWith("#") && name.endsWith("#")) {
    return false;
  }
  const only = filters.filter((f) => f.startsWith("*")).map((f) => f.slice(1));
  if (only.length > 0 && !only.some((ext) => name.endsWith(ext))) return false;
  return !filters.some((f) => !f.startsWith("*") && name.endsWith(f));
}

/** Files of a directory, as `--conf-dir` reads them: alphabetical, filtered. */
async function listDir(dir: string, filters: string[]): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) continue;
    if (confDirTakes(entry.name, filters)) names.push(entry.name);
  }
  return names.sort().map((n) => join(dir, n));
}

/** True when `path` is a directory; false for a file or a path stat cannot see. */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

/** A path named in a file, taken relative to that file's directory. */
export function relativeTo(file: string, path: string): string {
  return isAbsolute(path) ? path : resolve(dirname(file), path);
}

/**
 * Reads `path` (a file, or a directory read like `--conf-dir`) and every
 * file it includes. `conf-file=`/`conf-dir=` lines are consumed here; the
 * lines of an included file come where the include stands.
 */
export async function readConfig(
  path: string,
  readFile: ReadFile,
): Promise<ReadConfig> {
  const out: ReadConfig = { lines: [], problems: [], files: [] };
  const seen = new Set<string>();
  const decoder = new TextDecoder("utf-8", { fatal: true });

  const readOne = async (file: string, depth: number, from: string) => {
    const key = resolve(file);
    if (seen.has(key)) {
      out.problems.push({
        where: from,
        what: file,
        detail: "already read: an include loop or a repeated include",
      });
      return;
    }
    seen.add(key);
    let text: string;
    try {
      text = decoder.decode(await readFile(file));
    } catch (err) {
      out.problems.push({
        where: from,
        what: file,
        detail: err instanceof TypeError
          ? "not UTF-8 text"
          : `cannot be read: ${(err as Error).message}`,
      });
      return;
    }
    out.files.push(file);
    for (const line of parseLines(text, file, out.problems)) {
      const where = `${line.file}:${line.line}`;
      if (line.option === "conf-file" || line.option === "conf-dir") {
        if (line.fields.length === 0 || line.fields[0] === "") {
          out.problems.push({
            where,
            what: line.option,
            detail: "names no file",
          });
        } else if (depth >= MAX_INCLUDE_DEPTH) {
          out.problems.push({
            where,
            what: `${line.option}=${line.raw}`,
            detail: `includes nested deeper than ${MAX_INCLUDE_DEPTH}`,
          });
        } else if (line.option === "conf-file") {
          await readOne(relativeTo(file, line.fields[0]!), depth + 1, where);
        } else {
          await readDir(
            relativeTo(file, line.fields[0]!),
            line.fields.slice(1).filter((f) => f !== ""),
            depth + 1,
            where,
          );
        }
        continue;
      }
      out.lines.push(line);
    }
  };

  const readDir = async (
    dir: string,
    filters: string[],
    depth: number,
    from: string,
  ) => {
    let files: string[];
    try {
      files = await listDir(dir, filters);
    } catch (err) {
      out.problems.push({
        where: from,
        what: dir,
        detail: `cannot be listed: ${(err as Error).message}`,
      });
      return;
    }
    for (const f of files) await readOne(f, depth, from);
  };

  if (await isDirectory(path)) await readDir(path, [], 0, path);
  else await readOne(path, 0, path);
  return out;
}
