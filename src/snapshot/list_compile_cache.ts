/**
 * Compiles BlockList objects into CompiledListData, once per change that
 * matters, in a Worker (compile_worker.ts) so the main thread stays
 * responsive. A list is looked at again only when its spec or one of its
 * source bodies changed; then its rules are digested first, and compiled
 * only when the normalised rules differ from what is compiled (list bodies
 * change their header timestamps daily while their rules stay the same).
 * The compiled tables are SharedArrayBuffers: the main thread and the
 * listener workers share the worker's copy.
 */
import type { BlockList, ListSource } from "../api/v1alpha1/blocklist.ts";
import type { Logger } from "../log/logger.ts";
import type { CompiledListData } from "../blocking/types.ts";
import type {
  CompileJob,
  CompileResult,
  JobSource,
} from "./list_compile_job.ts";

/** A source body as found in the spec or the lists directory. */
export interface SourceBody {
  /** For log lines: the URL or "inline". */
  label: string;
  /** Changes whenever the body does (a digest, or mtime and size). */
  version: string;
  /** The text itself (inline sources) or the file holding it. */
  text?: string;
  path?: string;
}

/** Where the bodies of a list's sources come from. */
export type BodyReader = (source: ListSource) => SourceBody | undefined;

interface Compiled {
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

/**
 * Longest a changed list keeps its old rules while a new URL of it is not
 * downloaded: a URL that never works must not freeze the list's other edits.
 */
const AWAIT_DOWNLOAD_MS = 10 * 60_000;

/** The version of a source whose body is not on disk. */
const MISSING = "-";

const WORKER_URL = new URL("./compile_worker.ts", import.meta.url);

/** Per-list memory of what was compiled, so unchanged lists cost nothing. */
export class ListCompileCache {
  #byKey = new Map<string, Compiled>();
  #log: Logger;
  #worker: Worker | undefined;
  #pending = new Map<number, (result: CompileResult | undefined) => void>();
  #nextId = 1;
  #closed = false;

  constructor(logger: Logger) {
    this.#log = logger;
  }

  /**
   * The compiled form of `list` ("namespace/name" `key`), reusing the last
   * compile when its inputs or its rules did not change. Resolves to the
   * last compile (or nothing) when the cache is closed meanwhile.
   */
  async compile(
    key: string,
    list: BlockList,
    contentVersion: string,
    readBody: BodyReader,
  ): Promise<CompiledListData | undefined> {
    const mode = list.spec?.mode ?? "block";
    const sources = (list.spec?.sources ?? []).filter((s) => s.enabled);
    const bodies: JobSource[] = [];
    const versions = [contentVersion];
    /** URLs of this spec with no body yet. */
    const undownloaded: string[] = [];
    for (const source of sources) {
      const body = readBody(source);
      versions.push(body?.version ?? MISSING);
      if (body === undefined) {
        if (source.url !== undefined) undownloaded.push(source.url);
        continue;
      }
      bodies.push({
        label: body.label,
        format: source.format,
        ...(body.text !== undefined && { text: body.text }),
        ...(body.path !== undefined && { path: body.path }),
      });
    }
    const inputKey = versions.join("|");
    const previous = this.#byKey.get(key);
    if (previous?.inputKey === inputKey) return previous.data;
    if (previous !== undefined && lostBody(previous.versions, versions)) {
      // A body on disk went away (the lists directory was removed): its
      // rules still hold until it is fetched again.
      this.#log.warn(
        "A downloaded block list is missing from disk; keeping its rules until it is fetched again",
        { list: key },
      );
      return previous.data;
    }
    if (
      previous !== undefined &&
      this.#awaitsDownload(previous, versions, mode, undownloaded)
    ) {
      // A new URL (changed, or added) is not downloaded yet: compiling now
      // would drop its rules (a list whose only URL changed would block
      // nothing) until the download lands. The rules in force stay, for at
      // most AWAIT_DOWNLOAD_MS, and never across a change of mode.
      this.#log.info(
        "A block list changed; keeping its rules until its new sources are downloaded",
        { list: key },
      );
      return previous.data;
    }

    const meta = { key, name: displayName(key, list.metadata.name), mode };
    const result = await this.#run({
      id: this.#nextId++,
      meta,
      sources: bodies,
      ...(previous && { previousDigest: previous.data.digest }),
    });
    if (result === undefined) return previous?.data;
    for (const warning of result.warnings) {
      this.#log.warn(warning, { list: key });
    }
    let data: CompiledListData;
    if ("unchanged" in result) {
      // Same rules (the digest covers the mode): keep the shared tables.
      data = { ...previous!.data, name: meta.name };
    } else {
      data = result.data;
      this.#log.info("Compiled a block list", {
        list: key,
        rules: data.ruleCount,
      });
    }
    const urls = new Set(sources.flatMap((s) => s.url ?? []));
    this.#byKey.set(key, { inputKey, versions, urls, data });
    return data;
  }

  /**
   * True while a changed spec waits for a new URL's first download: the
   * spec version moved, the mode did not, and some URL with no body yet was
   * not among the last compile's. Starts and ends the wait on `previous`.
   */
  #awaitsDownload(
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

  /** Forgets lists that no longer exist. */
  retain(keys: ReadonlySet<string>): void {
    for (const key of this.#byKey.keys()) {
      if (!keys.has(key)) this.#byKey.delete(key);
    }
  }

  /** Ends the worker; compiles in flight resolve to their last result. */
  close(): void {
    this.#closed = true;
    this.#worker?.terminate();
    this.#worker = undefined;
    for (const resolve of this.#pending.values()) resolve(undefined);
    this.#pending.clear();
  }

  #run(job: CompileJob): Promise<CompileResult | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    const worker = this.#worker ??= this.#startWorker();
    return new Promise((resolve) => {
      this.#pending.set(job.id, resolve);
      worker.postMessage(job);
    });
  }

  #startWorker(): Worker {
    const worker = new Worker(WORKER_URL, { type: "module" });
    worker.onmessage = (event: MessageEvent<CompileResult>) => {
      const resolve = this.#pending.get(event.data.id);
      this.#pending.delete(event.data.id);
      resolve?.(event.data);
    };
    worker.onerror = (event: ErrorEvent) => {
      // A crashed compile must not take the server down: the lists keep
      // their last compile, and the next change starts a new worker.
      event.preventDefault();
      this.#log.error("The block-list compiler failed", {
        error: event.message,
      });
      worker.terminate();
      if (this.#worker === worker) this.#worker = undefined;
      for (const resolve of this.#pending.values()) resolve(undefined);
      this.#pending.clear();
    };
    return worker;
  }
}

/**
 * The name the query log, metrics and blocked answers' EDE text show: the
 * object's name, with its namespace unless that is "default", so two lists
 * named "ads" in two namespaces do not look the same.
 */
function displayName(key: string, name: string): string {
  return key.startsWith("default/") ? name : key;
}

/**
 * True when, with the spec unchanged (the first version), a source whose
 * body was compiled has none now.
 */
function lostBody(before: readonly string[], now: readonly string[]): boolean {
  if (before[0] !== now[0] || before.length !== now.length) return false;
  return now.some((v, i) => v === MISSING && before[i] !== MISSING);
}
