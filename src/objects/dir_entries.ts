/**
 * Which entries of the objects directory a load reads: the *.yaml, *.yml and
 * *.json files directly in it, as `kubectl apply -f dir/` reads them (JSON is
 * YAML). Like kubectl without -R, sub-directories are not read. Everything
 * else is listed as ignored so a load can say so: a `zones.txt` or a `sub/`
 * skipped in silence looks like a loader that lost objects.
 */
import { join } from "node:path";

/** The extensions of the files a load reads. */
const OBJECT_FILE_EXTENSIONS: readonly string[] = [
  ".yaml",
  ".yml",
  ".json",
];

/** An entry not read, and worth a word. */
export interface IgnoredEntry {
  name: string;
  directory: boolean;
}

export interface ObjectsDirEntries {
  /** Names of the files to read, sorted by name (the apply order). */
  files: string[];
  ignored: IgnoredEntry[];
}

/** Lists dir; throws when the directory cannot be read. */
export async function listObjectsDir(dir: string): Promise<ObjectsDirEntries> {
  const files: string[] = [];
  const ignored: IgnoredEntry[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (isNoise(entry.name)) continue;
    const directory = entry.isDirectory ||
      (entry.isSymlink && await isDirectoryBehind(join(dir, entry.name)));
    if (!directory && isObjectFileName(entry.name)) files.push(entry.name);
    else ignored.push({ name: entry.name, directory });
  }
  return { files: files.sort(compareNames), ignored: ignored.sort(byName) };
}

function isObjectFileName(name: string): boolean {
  return OBJECT_FILE_EXTENSIONS.some((ext) => name.endsWith(ext));
}

/**
 * Entries nobody wants to hear about on every load: dot files (ConfigMap
 * `..data`, editor swap and lock files), backups ending in `~`, Emacs
 * `#autosave#` files, vim's write test `4913` (any all-digit name) and
 * `.swp`-style or `.tmp` files an editor or tool leaves for a moment.
 */
function isNoise(name: string): boolean {
  return name.startsWith(".") || name.endsWith("~") ||
    (name.startsWith("#") && name.endsWith("#")) || /^\d+$/.test(name) ||
    /\.(swp|swo|swx|tmp)$/.test(name);
}

async function isDirectoryBehind(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false; // dangling: a file name's read reports it
  }
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function byName(a: IgnoredEntry, b: IgnoredEntry): number {
  return compareNames(a.name, b.name);
}
