/**
 * What a BlockList's compile is made of: its enabled sources' bodies, the
 * versions that say whether anything changed since the last compile, and
 * the rules about bodies that went missing or are not downloaded yet
 * (list_compile_cache.ts schedules the compiles).
 */
import type { BlockList, ListSource } from "../api/v1alpha1/blocklist.ts";
import type { CompiledListData } from "../blocking/types.ts";
import type { JobSource } from "./list_compile_job.ts";

/** A source body as found in the spec or the lists directory. */
export interface SourceBody {
  /** For log lines: the URL or "inline". */
  label: string;
  /** Changes whenever the body does (a digest, or mtime and size). */
  version: string;
  /** The text itself (inline sources) or the file holding it. */
  text?: string;
  path?: string;
  /** Bytes of the file, when known. */
  size?: number;
}

/** Where the bodies of a list's sources come from. */
export type BodyReader = (source: ListSource) => SourceBody | undefined;

/** A list's last compile, with what it was checked against. */
export interface Compiled {
  /** The spec version and body versions this was last checked against. */
  inputKey: string;
  /** The same, one per input ("-" for a body that was missing). */
  versions: string[];
  /** The URLs of the sources compiled in (downloads to wait for are new ones). */
  urls: ReadonlySet<string>;
  data: CompiledListData;
  /** When a changed spec started waiting for a new download (see awaitsDownload). */
  waitingSince?: number;
}

/** What one version of a list would be compiled from. */
export interface ListInputs {
  mode: "block" | "allow";
  /** The enabled sources. */
  sources: ListSource[];
  /** The bodies found, as a compile job takes them. */
  bodies: JobSource[];
  /** The spec's content version, then one per source (MISSING for no body). */
  versions: string[];
  /** `versions` as one string: equal keys need no compile. */
  inputKey: string;
  /** Bytes of text in `bodies`. */
  size: number;
  /** URLs of this spec with no body yet. */
  undownloaded: string[];
}

/**
 * Longest a changed list keeps its old rules while a new URL of it is not
 * downloaded: a URL that never works must not freeze the list's other edits.
 */
const AWAIT_DOWNLOAD_MS = 10 * 60_000;

/** The version of a source whose body is not on disk. */
const MISSING = "-";

/** The inputs of `list` at `contentVersion`, bodies from `readBody`. */
export function readListInputs(
  list: BlockList,
  contentVersion: string,
  readBody: BodyReader,
): ListInputs {
  const mode = list.spec?.mode ?? "block";
  const sources = (list.spec?.sources ?? []).filter((s) => s.enabled);
  const bodies: JobSource[] = [];
  const versions = [contentVersion];
  let size = 0;
  const undownloaded: string[] = [];
  for (const source of sources) {
    const body = readBody(source);
    versions.push(body?.version ?? MISSING);
    if (body === undefined) {
      if (source.url !== undefined) undownloaded.push(source.url);
      continue;
    }
    size += body.text?.length ?? body.size ?? fileSize(body.path);
    bodies.push({
      label: body.label,
      format: source.format,
      ...(body.text !== undefined && { text: body.text }),
      ...(body.path !== undefined && { path: body.path }),
    });
  }
  return {
    mode,
    sources,
    bodies,
    versions,
    inputKey: versions.join("|"),
    size,
    undownloaded,
  };
}

/**
 * True while a changed spec waits for a new URL's first download: the
 * spec version moved, the mode did not, and some URL with no body yet was
 * not among the last compile's. Starts and ends the wait on `previous`.
 */
export function awaitsDownload(
  previous: Compiled,
  versions: readonly string[],
  mode: string,
  undownloaded: readonly string[],
): boolean {
  const waiting = previous.versions[0] !== versions[0] &&
    previous.data.mode === mode &&
    undownloaded.some((url) => !previous.urls.has(url));
  if (!waiting) {
    delete previous.waitingSince;
    return false;
  }
  const now = Date.now();
  previous.waitingSince ??= now;
  return now - previous.waitingSince < AWAIT_DOWNLOAD_MS;
}

/**
 * True when, with the spec unchanged (the first version), a source whose
 * body was compiled has none now.
 */
export function lostBody(
  before: readonly string[],
  now: readonly string[],
): boolean {
  if (before[0] !== now[0] || before.length !== now.length) return false;
  return now.some((v, i) => v === MISSING && before[i] !== MISSING);
}

/**
 * The name the query log, metrics and blocked answers' EDE text show: the
 * object's name, with its namespace unless that is "default", so two lists
 * named "ads" in two namespaces do not look the same.
 */
export function displayName(key: string, name: string): string {
  return key.startsWith("default/") ? name : key;
}

function fileSize(path: string | undefined): number {
  if (path === undefined) return 0;
  try {
    return Deno.statSync(path).size;
  } catch {
    return 0;
  }
}
