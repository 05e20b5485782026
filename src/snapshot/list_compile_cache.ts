/**
 * Compiles BlockList objects into CompiledListData, once per change that
 * matters, in compile workers (compile_workers.ts) so the main thread stays
 * responsive. A list is looked at again only when its spec or one of its
 * source bodies changed; then its rules are digested first, and compiled
 * only when the normalised rules differ from what is compiled (list bodies
 * change their header timestamps daily while their rules stay the same).
 * The compiled tables are SharedArrayBuffers: the main thread and the
 * listener workers share the worker's copy.
 *
 * Compiles run in the background: `request` says at once what a list serves
 * (its last compile, kept until the new one is ready) and whether a newer
 * compile is under way, and `onSettled` runs when one ends. Smaller inputs
 * go first; at most `parallel` compiles of large lists run at once, and
 * SMALL_LIST_LANES more for small lists (SMALL_LIST_BYTES), so an edit to
 * a small list never waits for a slow, unrelated one. A compile whose input changed again, or whose list
 * was deleted, is abandoned (its worker terminated). One whose worker
 * crashed is counted, logged and tried again in a fresh worker after 1 s,
 * doubling to 5 min, for as long as that input is wanted. With `smallNow`
 * a small list is compiled right away on the calling thread instead (a few
 * milliseconds; for the first snapshot, when starting a worker would cost
 * more than the compile).
 */
import type { BlockList } from "../api/v1alpha1/blocklist.ts";
import type { Logger } from "../log/logger.ts";
import type { CompiledListData } from "../blocking/types.ts";
import {
  type CompileJob,
  type CompileResult,
  type JobSource,
  runCompileJob,
} from "./list_compile_job.ts";
import { CompileWorkers, type Run } from "./compile_workers.ts";
import {
  awaitsDownload,
  type BodyReader,
  type Compiled,
  displayName,
  lostBody,
  readListInputs,
} from "./list_compile_inputs.ts";

export type { BodyReader, SourceBody } from "./list_compile_inputs.ts";

/** What a list serves now, and what is under way for it. */
export interface ListState {
  /** The rules in force: the last compile, or none yet. */
  data: CompiledListData | undefined;
  /** A compile of newer input is queued, running or waiting for a retry. */
  pending: boolean;
  /** The size of that newer input (bytes of text); 0 when none. */
  size: number;
  /** Why the last attempt at that input failed; it is tried again. */
  error?: string;
}

/**
 * Lists up to this size (the bytes of all their sources) compile in tens of
 * milliseconds: they never wait for a free slot, and with
 * `blocking.initStrategy: fast` the first snapshot compiles them itself.
 */
export const SMALL_LIST_BYTES = 256 * 1024;

/** Compiles of small lists that may run beside `parallel` large ones. */
export const SMALL_LIST_LANES = 2;

export interface ListCompileCacheOptions {
  /** A compile ended (compiled, or failed and to be retried). */
  onSettled?: () => void;
  /** Counts compile failures (kudurru_blocklist_compile_failures_total). */
  metrics?: { compileFailed(): void };
  /** The wait before retrying a failed compile, doubling up to `max`. */
  retryMs?: { first: number; max: number };
  /** Compiles of lists larger than SMALL_LIST_BYTES at once. @default 2 */
  parallel?: number;
}

/** An input of a list that is not compiled yet. */
interface Want {
  key: string;
  inputKey: string;
  versions: string[];
  urls: ReadonlySet<string>;
  meta: CompileJob["meta"];
  sources: JobSource[];
  size: number;
  /** The compile running now. */
  run?: Run;
  /** Failed attempts so far, the last one's error and the retry's timer. */
  failures: number;
  error?: string;
  retry?: ReturnType<typeof setTimeout>;
}

interface Entry {
  compiled?: Compiled;
  want?: Want;
  /** Why the last compile is kept without compiling (logged when it starts). */
  holding?: "missing" | "awaiting";
}

const RETRY_MS = { first: 1_000, max: 5 * 60_000 };

/** Per-list memory of what was compiled, so unchanged lists cost nothing. */
export class ListCompileCache {
  #byKey = new Map<string, Entry>();
  #log: Logger;
  #opts: ListCompileCacheOptions;
  #workers = new CompileWorkers();
  /** Wanted inputs waiting for a worker. */
  #queue = new Set<Want>();
  /** compile() calls waiting for a list's compile to end. */
  #waiters = new Map<string, (() => void)[]>();
  #nextId = 1;
  #closed = false;

  constructor(logger: Logger, opts: ListCompileCacheOptions = {}) {
    this.#log = logger;
    this.#opts = opts;
  }

  /**
   * What `list` ("namespace/name" `key`) serves now. When its inputs
   * changed in a way that needs a compile, one is started (or kept, when
   * it is for these very inputs) and the state says `pending`; the last
   * compile stays in force meanwhile.
   */
  request(
    key: string,
    list: BlockList,
    contentVersion: string,
    readBody: BodyReader,
    opts: { smallNow?: boolean } = {},
  ): ListState {
    let entry = this.#byKey.get(key);
    if (entry === undefined) this.#byKey.set(key, entry = {});
    const { mode, sources, bodies, versions, inputKey, size, undownloaded } =
      readListInputs(list, contentVersion, readBody);
    const previous = entry.compiled;
    const keep = (holding?: Entry["holding"]): ListState => {
      if (entry.want) this.#abandon(entry.want, "its list changed again");
      delete entry.want;
      if (holding === undefined) delete entry.holding;
      else entry.holding = holding;
      return { data: previous?.data, pending: false, size: 0 };
    };
    if (previous?.inputKey === inputKey) return keep();
    if (previous !== undefined && lostBody(previous.versions, versions)) {
      // A body on disk went away (the lists directory was removed): its
      // rules still hold until it is fetched again.
      if (entry.holding !== "missing") {
        this.#log.warn(
          "A downloaded block list is missing from disk; keeping its rules until it is fetched again",
          { list: key },
        );
      }
      return keep("missing");
    }
    if (
      previous !== undefined &&
      awaitsDownload(previous, versions, mode, undownloaded)
    ) {
      // A new URL (changed, or added) is not downloaded yet: compiling now
      // would drop its rules (a list whose only URL changed would block
      // nothing) until the download lands. The rules in force stay, for at
      // most AWAIT_DOWNLOAD_MS, and never across a change of mode.
      if (entry.holding !== "awaiting") {
        this.#log.info(
          "A block list changed; keeping its rules until its new sources are downloaded",
          { list: key },
        );
      }
      return keep("awaiting");
    }
    delete entry.holding;
    if (this.#closed) return { data: previous?.data, pending: false, size: 0 };

    if (entry.want?.inputKey !== inputKey) {
      if (entry.want) this.#abandon(entry.want, "its list changed again");
      entry.want = {
        key,
        inputKey,
        versions,
        urls: new Set(sources.flatMap((s) => s.url ?? [])),
        meta: { key, name: displayName(key, list.metadata.name), mode },
        sources: bodies,
        size,
        failures: 0,
      };
      if (opts.smallNow && size <= SMALL_LIST_BYTES) {
        this.#compileHere(entry.want);
      } else {
        this.#queue.add(entry.want);
        this.#pump();
      }
    }
    const want = entry.want;
    if (want === undefined) {
      return { data: entry.compiled?.data, pending: false, size: 0 };
    }
    return {
      data: entry.compiled?.data,
      pending: true,
      size: want.size,
      ...(want.error !== undefined && { error: want.error }),
    };
  }

  /**
   * `request`, then waits until that compile ended: the compiled form, or
   * the last compile (or nothing) when it failed or the cache was closed.
   */
  async compile(
    key: string,
    list: BlockList,
    contentVersion: string,
    readBody: BodyReader,
  ): Promise<CompiledListData | undefined> {
    for (;;) {
      const state = this.request(key, list, contentVersion, readBody);
      if (!state.pending || state.error !== undefined) return state.data;
      await new Promise<void>((resolve) => {
        const waiting = this.#waiters.get(key) ?? [];
        waiting.push(resolve);
        this.#waiters.set(key, waiting);
      });
    }
  }

  /** Lists whose newest input is not compiled yet (queued, running, retrying). */
  pendingCount(): number {
    let n = 0;
    for (const entry of this.#byKey.values()) if (entry.want) n++;
    return n;
  }

  /** Lists with no compile in force yet and a first compile under way. */
  loading(): string[] {
    const keys: string[] = [];
    for (const [key, entry] of this.#byKey) {
      if (!entry.compiled && entry.want && entry.want.error === undefined) {
        keys.push(key);
      }
    }
    return keys;
  }

  /** Lists whose last compile attempt failed (retried), with the error. */
  failures(): { key: string; error: string; failures: number }[] {
    const failed = [];
    for (const [key, entry] of this.#byKey) {
      const want = entry.want;
      if (want?.error !== undefined) {
        failed.push({ key, error: want.error, failures: want.failures });
      }
    }
    return failed;
  }

  /** Forgets lists that no longer exist; their compiles are abandoned. */
  retain(keys: ReadonlySet<string>): void {
    for (const [key, entry] of this.#byKey) {
      if (keys.has(key)) continue;
      if (entry.want) this.#abandon(entry.want, "its list was deleted");
      this.#byKey.delete(key);
      this.#wake(key);
    }
    this.#pump();
  }

  /** Ends the workers; compiles in flight are dropped, nothing new starts. */
  close(): void {
    this.#closed = true;
    for (const entry of this.#byKey.values()) {
      if (entry.want?.retry !== undefined) clearTimeout(entry.want.retry);
    }
    this.#queue.clear();
    this.#workers.close();
    for (const key of [...this.#waiters.keys()]) this.#wake(key);
  }

  /** Starts queued compiles, smallest first, while slots are free. */
  #pump(): void {
    if (this.#closed) return;
    const parallel = this.#opts.parallel ?? 2;
    const queued = [...this.#queue].sort((a, b) => a.size - b.size);
    for (const want of queued) {
      // Small lists have SMALL_LIST_LANES lanes beyond the large ones, so a
      // slow large compile never holds them up, and 100 lists edited at
      // once do not start 100 workers (1.45 GB).
      const lanes = want.size > SMALL_LIST_BYTES
        ? parallel
        : parallel + SMALL_LIST_LANES;
      if (this.#workers.running >= lanes) continue;
      this.#queue.delete(want);
      this.#run(want);
    }
  }

  #job(want: Want): CompileJob {
    const previous = this.#byKey.get(want.key)?.compiled;
    return {
      id: this.#nextId++,
      meta: want.meta,
      sources: want.sources,
      ...(previous && { previousDigest: previous.data.digest }),
    };
  }

  /** Compiles `want` on this thread, now. */
  #compileHere(want: Want): void {
    let result: CompileResult;
    try {
      result = runCompileJob(this.#job(want));
    } catch (err) {
      return this.#failed(
        want,
        err instanceof Error ? err.message : String(err),
      );
    }
    this.#compiled(want, result, false);
  }

  #run(want: Want): void {
    const job = this.#job(want);
    try {
      want.run = this.#workers.start<CompileResult>(job, {
        onReply: (result) => this.#compiled(want, result),
        onCrash: (message) => this.#failed(want, message),
      });
    } catch (err) {
      // No worker could be started: like a crash, tried again later.
      queueMicrotask(() => this.#failed(want, String(err)));
    }
  }

  /** Takes a compile's result; `notify`: tell onSettled (not for #compileHere). */
  #compiled(want: Want, result: CompileResult, notify = true): void {
    const entry = this.#byKey.get(want.key);
    if (entry?.want !== want) return this.#pump(); // abandoned meanwhile
    delete want.run;
    for (const warning of result.warnings) {
      this.#log.warn(warning, { list: want.key });
    }
    let data: CompiledListData;
    if ("data" in result) {
      data = result.data;
      this.#log.info("Compiled a block list", {
        list: want.key,
        rules: data.ruleCount,
        ...(want.failures > 0 && { failedAttempts: want.failures }),
      });
    } else if (entry.compiled !== undefined) {
      // Same rules (the digest covers the mode): keep the shared tables.
      data = { ...entry.compiled.data, name: want.meta.name };
    } else {
      return this.#failed(want, "the compiler found nothing to compare with");
    }
    const { inputKey, versions, urls } = want;
    entry.compiled = { inputKey, versions, urls, data };
    delete entry.want;
    if (notify) this.#settled(want.key);
    else this.#wake(want.key);
  }

  /** The worker crashed: count it and try again later in a fresh one. */
  #failed(want: Want, message: string): void {
    const entry = this.#byKey.get(want.key);
    if (entry?.want !== want) return this.#pump();
    delete want.run;
    want.failures++;
    want.error = message;
    this.#opts.metrics?.compileFailed();
    const { first, max } = this.#opts.retryMs ?? RETRY_MS;
    const delayMs = Math.min(max, first * 2 ** (want.failures - 1));
    this.#log.error(
      "The block-list compiler failed; the list keeps its last rules, if any, and is compiled again",
      {
        list: want.key,
        error: message,
        failedAttempts: want.failures,
        retryInSeconds: delayMs / 1000,
      },
    );
    want.retry = setTimeout(() => {
      delete want.retry;
      if (this.#closed || this.#byKey.get(want.key)?.want !== want) return;
      this.#queue.add(want);
      this.#pump();
    }, delayMs);
    this.#settled(want.key);
  }

  /** Drops `want`: its compile ends at once, its retry never comes. */
  #abandon(want: Want, why: string): void {
    this.#queue.delete(want);
    if (want.retry !== undefined) clearTimeout(want.retry);
    delete want.retry;
    if (want.run === undefined) return;
    want.run.cancel();
    delete want.run;
    this.#log.info(`Abandoned a block-list compile: ${why}`, {
      list: want.key,
    });
    // Its lane is free for what waits.
    this.#pump();
  }

  #settled(key: string): void {
    this.#wake(key);
    try {
      this.#opts.onSettled?.();
    } finally {
      this.#pump();
    }
  }

  #wake(key: string): void {
    const waiting = this.#waiters.get(key);
    this.#waiters.delete(key);
    for (const resolve of waiting ?? []) resolve();
  }
}
