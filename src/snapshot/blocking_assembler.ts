/**
 * Builds the blocking part of the Snapshot (BlockingSnapshot) on the main
 * thread: BlockLists compiled from their inline text and from the bodies the
 * list fetcher keeps in the lists directory, ClientGroups and Policies as
 * plain data with their references resolved, the server's blocking settings
 * and the temporary disable. Every change publishes a new object, so the
 * snapshot builder and the workers can tell by identity.
 */
import type { BlockList, ListSource } from "../api/v1alpha1/blocklist.ts";
import type { ClientGroup } from "../api/v1alpha1/clientgroup.ts";
import type { Policy } from "../api/v1alpha1/policy.ts";
import type { Config } from "../config/schema.ts";
import type { Logger } from "../log/logger.ts";
import type {
  BlockingSnapshot,
  BlockResponse,
  ClientGroupData,
  PolicyData,
} from "../blocking/blocking_snapshot.ts";
import type { Store } from "../store/store.ts";
import { listFilePath } from "../blocking/list_files.ts";
import { type Backoff, KindMirror } from "./kind_mirror.ts";
import { ListCompileCache, type SourceBody } from "./list_compile_cache.ts";
import { resolvePolicy } from "./policy_refs.ts";

export interface BlockingAssemblerOptions {
  store: Store;
  /** Where the list fetcher keeps bodies (`<listsDir>/<sha256(url)>`). */
  listsDir: string;
  settings: Config["blocking"];
  /** The names in `upstreams.groups`, checked against Policies. */
  upstreamGroups?: readonly string[];
  logger: Logger;
  /** Called after every new BlockingSnapshot. */
  onChange: () => void;
  /** Changes within this window are built once. @default 100 */
  debounceMs?: number;
  backoff?: Backoff;
  /**
   * Which list compiles the first snapshot waits for: "all" (a compile that
   * failed is not waited for), or "small" (for `blocking.initStrategy:
   * fast`): lists up to SMALL_LIST_BYTES are compiled by that build itself,
   * on the main thread, and larger ones join the snapshot as each is ready.
   * @default "all"
   */
  firstSnapshotWaits?: "all" | "small";
  /** Counts compile failures (kudurru_blocklist_compile_failures_total). */
  metrics?: { compileFailed(): void };
  /** The wait before compiling a list again after a failure (tests). */
  compileRetryMs?: { first: number; max: number };
}

/** "namespace/name" of a namespaced object. */
export function objectKey(
  obj: { metadata: { namespace?: string; name: string } },
): string {
  return `${obj.metadata.namespace ?? ""}/${obj.metadata.name}`;
}

export class BlockingAssembler {
  /**
   * Resolves once all three kinds are listed and the first snapshot is
   * published (see `firstSnapshotWaits`), or the assembler stopped.
   */
  readonly synced: Promise<void>;
  #resolveSynced!: () => void;
  #opts: BlockingAssemblerOptions;
  #log: Logger;
  #lists: KindMirror<BlockList>;
  #groups: KindMirror<ClientGroup>;
  #policies: KindMirror<Policy>;
  #cache: ListCompileCache;
  #current: BlockingSnapshot | undefined;
  #disabledUntil: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  /**
   * The warnings of the last build, each logged when it first appeared: a
   * dangling reference that resolves and dangles again is logged again.
   */
  #warned = new Set<string>();
  /** The first build has begun; changes from now on schedule builds. */
  #listed = false;

  constructor(opts: BlockingAssemblerOptions) {
    this.#opts = opts;
    this.#log = opts.logger.with({ component: "blocking" });
    this.#cache = new ListCompileCache(this.#log, {
      // Before the first snapshot every moment is SERVFAIL: no debounce.
      onSettled: () =>
        this.#current === undefined && this.#listed
          ? queueMicrotask(() => this.#rebuild())
          : this.#schedule(),
      ...(opts.metrics && { metrics: opts.metrics }),
      ...(opts.compileRetryMs && { retryMs: opts.compileRetryMs }),
    });
    const common = {
      store: opts.store,
      logger: this.#log,
      onChange: () => this.#schedule(),
      ...(opts.backoff ? { backoff: opts.backoff } : {}),
    };
    this.#lists = new KindMirror<BlockList>({ ...common, kind: "BlockList" });
    this.#groups = new KindMirror<ClientGroup>({
      ...common,
      kind: "ClientGroup",
    });
    this.#policies = new KindMirror<Policy>({ ...common, kind: "Policy" });
    this.synced = new Promise((resolve) => this.#resolveSynced = resolve);
    Promise.all([
      this.#lists.synced,
      this.#groups.synced,
      this.#policies.synced,
    ]).then(() => {
      if (this.#stopped) return;
      this.#listed = true;
      this.#rebuild();
    });
  }

  start(): void {
    this.#lists.start();
    this.#groups.start();
    this.#policies.start();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#cache.close(); // compiles in flight end at once
    await Promise.all([
      this.#lists.stop(),
      this.#groups.stop(),
      this.#policies.stop(),
    ]);
    this.#resolveSynced();
  }

  /** The last build; undefined until synced. */
  current(): BlockingSnapshot | undefined {
    return this.#current;
  }

  /**
   * BlockLists whose sources failed to load ("namespace/name: message"),
   * from the Ready condition the list fetcher writes. They still serve
   * their last good rules, if any.
   */
  failedLists(): string[] {
    const failed: string[] = [];
    for (const { object } of this.#lists.values()) {
      const ready = object.status?.conditions?.find((c) => c.type === "Ready");
      if (ready?.status === "False") {
        failed.push(`${objectKey(object)}: ${ready.message ?? ready.reason}`);
      }
    }
    for (const { key, error, failures } of this.#cache.failures()) {
      failed.push(
        `${key}: compiling failed (${failures}x, retrying): ${error}`,
      );
    }
    return failed.sort();
  }

  /**
   * BlockLists whose rules are not in force yet ("namespace/name"): the
   * list fetcher has not reported on them (no Ready condition, or Ready
   * Unknown), or their first compile on this node is still running.
   */
  loadingLists(): string[] {
    const loading = new Set(this.#cache.loading());
    for (const { object } of this.#lists.values()) {
      const ready = object.status?.conditions?.find((c) => c.type === "Ready");
      if (ready === undefined || ready.status === "Unknown") {
        loading.add(objectKey(object));
      }
    }
    return [...loading].sort();
  }

  /**
   * BlockLists whose newest input is not compiled yet on this node
   * (queued, compiling, or waiting to be tried again after a failure).
   */
  pendingCompiles(): number {
    return this.#cache.pendingCount();
  }

  /** The temporary disable (`kudurru blocking disable`), epoch ms or none. */
  setDisabledUntil(until: number | undefined): void {
    if (until === this.#disabledUntil) return;
    this.#disabledUntil = until;
    if (this.#current === undefined) return;
    const { disabledUntil: _, ...rest } = this.#current;
    this.#publish(
      until === undefined ? rest : { ...rest, disabledUntil: until },
    );
  }

  #schedule(): void {
    if (this.#stopped || !this.#listed) return;
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#rebuild();
    }, this.#opts.debounceMs ?? 100);
  }

  /** Keys of the lists some Policy names in allowListRefs. */
  #allowListKeys(): Set<string> {
    const keys = new Set<string>();
    for (const { object } of this.#policies.values()) {
      const ns = object.metadata.namespace ?? "";
      for (const ref of object.spec?.allowListRefs ?? []) {
        keys.add(`${ns}/${ref}`);
      }
    }
    return keys;
  }

  /** Builds now; a failure is logged and the last build stays. */
  #rebuild(): void {
    try {
      this.#build();
    } catch (err) {
      this.#log.error("Building the blocking data failed", { error: err });
    }
  }

  #build(): void {
    if (this.#stopped) return;
    const settings = this.#opts.settings;
    const mirrored = [...this.#lists.values()];
    // Deleted lists first: their compiles end and free their slots.
    this.#cache.retain(new Set(mirrored.map((m) => objectKey(m.object))));
    const first = this.#current === undefined;
    const waitAll = (this.#opts.firstSnapshotWaits ?? "all") === "all";
    // fast: the first build compiles the small lists itself (milliseconds,
    // less than starting a worker) and goes without the others.
    const smallNow = first && !waitAll;
    // fast goes without large block lists, never without an allow list:
    // late, it would let its block lists block what it allows, and those
    // answers stay in clients' caches for blockTTL.
    const allowing = first && !waitAll ? this.#allowListKeys() : undefined;
    const lists = [];
    const modes = new Map<string, "block" | "allow">();
    /** Lists the first snapshot waits for, and lists it goes without. */
    const awaited: string[] = [];
    const loading: string[] = [];
    for (const { object, contentVersion } of mirrored) {
      const key = objectKey(object);
      const state = this.#cache.request(
        key,
        object,
        contentVersion,
        (source) => this.#bodyOf(source),
        { smallNow },
      );
      const compiling = state.pending && state.error === undefined;
      const allows = object.spec?.mode === "allow" || allowing?.has(key);
      if (compiling && (waitAll || allows)) awaited.push(key);
      // The policies refer by the mode of the rules in force: a list whose
      // mode changed keeps its old side until its new compile is ready.
      modes.set(key, state.data?.mode ?? object.spec?.mode ?? "block");
      const compiled = state.data;
      if (compiled === undefined) {
        if (compiling) loading.push(key);
        continue;
      }
      const response = object.spec?.response;
      lists.push(
        response
          ? {
            ...compiled,
            response: {
              mode: response.mode,
              customIPs: response.customIPs ?? [],
            },
          }
          : compiled,
      );
    }
    // The first snapshot waits; the end of each compile builds again.
    if (first && awaited.length > 0) return;
    const groups: ClientGroupData[] = [...this.#groups.values()].map((m) => ({
      key: objectKey(m.object),
      clients: m.object.spec?.clients ?? [],
    }));
    const { upstreamGroups } = this.#opts;
    const targets = {
      listModes: modes,
      ...(upstreamGroups && { upstreamGroups }),
    };
    const warnings = new Set<string>();
    const policies: PolicyData[] = [...this.#policies.values()].map((m) =>
      resolvePolicy(m.object, targets, (message) => warnings.add(message))
    );
    for (const message of warnings) {
      if (!this.#warned.has(message)) this.#log.warn(message);
    }
    this.#warned = warnings;
    const byKey = <T extends { key: string }>(a: T, b: T) =>
      a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
    this.#publish({
      enabled: settings.enabled,
      ...(this.#disabledUntil !== undefined &&
        { disabledUntil: this.#disabledUntil }),
      response: serverResponse(settings),
      lists: lists.sort(byKey),
      groups: groups.sort(byKey),
      policies: policies.sort(byKey),
    });
    if (!first) return;
    if (loading.length > 0) {
      this.#log.info(
        "Serving before these block lists are compiled; each one blocks once it is ready",
        { lists: loading.sort().join(", ") },
      );
    }
    this.#resolveSynced();
  }

  #publish(next: BlockingSnapshot): void {
    this.#current = next;
    try {
      this.#opts.onChange();
    } catch (err) {
      this.#log.error("The blocking consumer failed", { error: err });
    }
  }

  /** The body of a source: inline text, or the fetched file of a URL. */
  #bodyOf(source: ListSource): SourceBody | undefined {
    if (source.inline !== undefined) {
      const text = source.inline;
      return { label: "inline", version: "inline", text };
    }
    if (source.url === undefined) return undefined; // configMapRef: a seam
    const path = listFilePath(this.#opts.listsDir, source.url);
    let info: Deno.FileInfo;
    try {
      info = Deno.statSync(path);
    } catch {
      return undefined; // not fetched yet: the fetcher's status says why
    }
    return {
      label: source.url,
      version: `${info.mtime?.getTime() ?? 0}:${info.size}`,
      path,
      size: info.size,
    };
  }
}

/** `blocking.defaultResponse`, `customIPs` and `blockTTL` as a BlockResponse. */
export function serverResponse(settings: Config["blocking"]): BlockResponse {
  return {
    mode: settings.defaultResponse,
    customIPs: settings.customIPs,
    ttl: Math.round(settings.blockTTL / 1000),
  };
}
