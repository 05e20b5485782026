/**
 * The sources of file-managed objects, in apply order: the inline objects of
 * the config file, then every *.yaml, *.yml and *.json file directly in the
 * objects directory, by name.
 */
import { basename, join, resolve } from "node:path";
import type { Diagnosis } from "./diagnosis.ts";
import { readUtf8File } from "../config/utf8_file.ts";
import {
  type IgnoredEntry,
  listObjectsDir,
  type ObjectsDirEntries,
} from "./dir_entries.ts";

/**
 * Largest objects file read. YAML is parsed on the main thread, which also
 * answers health probes and builds snapshots: 3.8 MB of record sets (60,000
 * records) took 2.4 s and 360 MB to parse, 60 MB took 2.4 GB and 30 s to
 * load, 150 MB ran the process out of memory. Record sets of one zone may
 * come from several files, so a larger zone is split, not refused.
 */
export const MAX_OBJECTS_FILE_BYTES = 4 * 1024 * 1024;

/**
 * The text of a file of objects, within MAX_OBJECTS_FILE_BYTES: a bigger
 * file is refused before a byte of it is read or parsed.
 *
 * @throws {Error} saying why: too big, not UTF-8, or the read failed
 */
export async function readObjectsFile(path: string): Promise<string> {
  const { size } = await Deno.stat(path);
  if (size > MAX_OBJECTS_FILE_BYTES) {
    throw new Error(
      `it is ${size} bytes; a file of objects is at most ${MAX_OBJECTS_FILE_BYTES} (4 MiB): split its objects into several files`,
    );
  }
  return await readUtf8File(path);
}

/** The inline source's name when the config file's name is not known. */
export const DEFAULT_INLINE_SOURCE = "kudurru.yaml";

/** The manager that owns a source's objects: "file:" + source. */
export function managerOf(source: string): string {
  return `file:${source}`;
}

/** One source as read by a load. */
export type Source =
  | {
    kind: "inline";
    name: string;
    manager: string;
    values: readonly unknown[];
  }
  | {
    kind: "file";
    name: string;
    manager: string;
    path: string;
    text: string;
    /** The file's mtime (ms since the epoch), when the filesystem has one. */
    modifiedMs?: number;
  }
  | { kind: "unreadable"; name: string; manager: string; path: string };

export interface ReadSourcesOptions {
  inline?: readonly unknown[];
  inlineSource?: string;
  dir?: string;
}

export interface ReadSourcesResult {
  sources: Source[];
  /** Manager prefixes whose objects must not be touched ("file:objects.d/"). */
  protectedPrefixes: string[];
  diagnoses: Diagnosis[];
}

/** Reads every source. Never throws; problems become diagnoses. */
export async function readSources(
  opts: ReadSourcesOptions,
): Promise<ReadSourcesResult> {
  const out: ReadSourcesResult = {
    sources: [],
    protectedPrefixes: [],
    diagnoses: [],
  };
  if (opts.inline) {
    const name = opts.inlineSource || DEFAULT_INLINE_SOURCE;
    out.sources.push({
      kind: "inline",
      name,
      manager: managerOf(name),
      values: opts.inline,
    });
  }
  if (opts.dir) await readDir(opts.dir, out);
  return out;
}

/** "objects.d" for "/etc/kudurru/objects.d/". */
export function dirSourceBase(dir: string): string {
  return basename(resolve(dir));
}

async function readDir(dir: string, out: ReadSourcesResult): Promise<void> {
  const base = dirSourceBase(dir);
  let entries: ObjectsDirEntries;
  try {
    entries = await listObjectsDir(dir);
  } catch (e) {
    out.protectedPrefixes.push(managerOf(`${base}/`));
    if (e instanceof Deno.errors.NotFound) {
      // A typo in objectsDir, or a directory moved away, must not delete
      // every object it held; an empty directory does that deliberately.
      // Info, not a warning: installs without an objects directory (the
      // embedded defaults) are normal.
      out.diagnoses.push({
        severity: "info",
        reason: "ReadFailed",
        source: `${base}/`,
        message: `Objects directory "${dir}" does not exist`,
        hint:
          "objects loaded from it before are kept; to remove them, create it empty",
      });
      return;
    }
    out.diagnoses.push({
      severity: "error",
      reason: "ReadFailed",
      source: `${base}/`,
      message: `Cannot read objects directory "${dir}": ${errorText(e)}`,
      hint:
        "objects from this directory are kept as they are until it can be read again",
    });
    return;
  }
  for (const entry of entries.ignored) {
    out.diagnoses.push(ignoredDiagnosis(base, entry));
  }
  for (const name of entries.files) {
    const source = `${base}/${name}`;
    const path = join(dir, name);
    try {
      const info = await Deno.stat(path); // follows symlinks (ConfigMap ..data)
      if (!info.isFile) continue;
      const text = await readObjectsFile(path);
      if (text.trim() === "") {
        // More often a write cut short (a full disk, an editor mid-save, a
        // `>` redirect) than a wish to delete every object of the file.
        keepObjectsOf(out, source, path, {
          severity: "warning",
          reason: "EmptyFile",
          source,
          message: `"${path}" is empty: any objects it held are kept`,
          hint: "to delete them, delete the file or leave a comment line in it",
        });
        continue;
      }
      const modifiedMs = info.mtime?.getTime();
      out.sources.push({
        kind: "file",
        name: source,
        manager: managerOf(source),
        path,
        text,
        ...(modifiedMs === undefined ? {} : { modifiedMs }),
      });
    } catch (e) {
      keepObjectsOf(out, source, path, {
        severity: "error",
        reason: "ReadFailed",
        source,
        message: `Cannot read "${path}": ${errorText(e)}`,
        hint: "its objects are kept as they are until it can be read again",
      });
    }
  }
}

/** A file not taken this pass: its objects are protected, and why is said. */
function keepObjectsOf(
  out: ReadSourcesResult,
  source: string,
  path: string,
  why: Diagnosis,
): void {
  out.sources.push({
    kind: "unreadable",
    name: source,
    manager: managerOf(source),
    path,
  });
  out.diagnoses.push(why);
}

function ignoredDiagnosis(base: string, entry: IgnoredEntry): Diagnosis {
  if (entry.directory) {
    return {
      severity: "info",
      reason: "Ignored",
      source: `${base}/${entry.name}/`,
      message: `Ignored "${entry.name}/": subdirectories are not read`,
      hint:
        "kubectl apply -f does not descend into them either; move its files up to load them",
    };
  }
  return {
    severity: "info",
    reason: "Ignored",
    source: `${base}/${entry.name}`,
    message:
      `Ignored "${entry.name}": only *.yaml, *.yml and *.json files are read`,
    hint: "rename it to end in .yaml to load it",
  };
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
