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
import { parseDuration } from "../config/duration.ts";
import type { Logger } from "../log/logger.ts";
import type {
  BlockingSnapshot,
  BlockResponse,
  ClientGroupData,
  PolicyData,
} from "../pipeline/blocking_snapshot.ts";
import type { Store } from "../store/store.ts";
import { listFilePath } from "../controller/list_files.ts";
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
}

/** "namespace/name" of a namespaced object. */
export function objectKey(
  obj: { metadata: { namespace?: string; name: string } },
): string {
  return `${obj.metadata.namespace ?? ""}/${obj.metadata.name}`;
}

export class BlockingAssembler {
  /** Resolves once all three kinds are listed and the first build is done. */
  readonly synced: Promise<void>;
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
  /** Warnings already logged, so a dangling reference is logged once. */
  #warned = new Set<string>();
  /** The build in progress (compiles run in a worker). */
  #building: Promise<void> | undefined;
  /** A change arrived during the build in progress: build once more. */
  #again = false;
  /** The first build has begun; changes from now on schedule builds. */
  #listed = false;

  constructor(opts: BlockingAssemblerOptions) {
    this.#opts = opts;
    this.#log = opts.logger.with({ component: "blocking" });
    this.#cache = new ListCompileCache(this.#log);
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
    this.synced = Promise.all([
      this.#lists.synced,
      this.#groups.synced,
      this.#policies.synced,
    ]).then(() => {
      if (this.#stopped) return;
      this.#listed = true;
      return this.#rebuild();
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
      this.#building,
    ]);
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
    return failed.sort();
  }

  /**
   * BlockLists the list fetcher has not reported on yet ("namespace/name":
   * no Ready condition, or Ready Unknown): their rules are not in force.
   */
  loadingLists(): string[] {
    const loading: string[] = [];
    for (const { object } of this.#lists.values()) {
      const ready = object.status?.conditions?.find((c) => c.type === "Ready");
      if (ready === undefined || ready.status === "Unknown") {
        loading.push(objectKey(object));
      }
    }
    return loading.sort();
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

  /** Builds now, or once more right after the build in progress. */
  #rebuild(): Promise<void> {
    if (this.#building !== undefined) {
      this.#again = true;
      return this.#building;
    }
    this.#building = (async () => {
      do {
        this.#again = false;
        await this.#build();
      } while (this.#again && !this.#stopped);
    })().catch((err) => {
      this.#log.error("Building the blocking data failed", { error: err });
    }).finally(() => this.#building = undefined);
    return this.#building;
  }

  async #build(): Promise<void> {
    if (this.#stopped) return;
    const settings = this.#opts.settings;
    const lists = [];
    const modes = new Map<string, "block" | "allow">();
    const live = new Set<string>();
    for (const { object, contentVersion } of this.#lists.values()) {
      const key = objectKey(object);
      live.add(key);
      const compiled = await this.#cache.compile(
        key,
        object,
        contentVersion,
        (source) => this.#bodyOf(source),
      );
      if (compiled === undefined) continue; // stopping
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
      modes.set(key, object.spec?.mode ?? "block");
    }
    if (this.#stopped) return;
    this.#cache.retain(live);
    const groups: ClientGroupData[] = [...this.#groups.values()].map((m) => ({
      key: objectKey(m.object),
      clients: m.object.spec?.clients ?? [],
    }));
    const { upstreamGroups } = this.#opts;
    const targets = {
      listModes: modes,
      ...(upstreamGroups && { upstreamGroups }),
    };
    const policies: PolicyData[] = [...this.#policies.values()].map((m) =>
      resolvePolicy(m.object, targets, (message) => this.#warnOnce(message))
    );
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
    };
  }

  #warnOnce(message: string): void {
    if (this.#warned.has(message)) return;
    this.#warned.add(message);
    this.#log.warn(message);
  }
}

/** `blocking.defaultResponse`, `customIPs` and `blockTTL` as a BlockResponse. */
export function serverResponse(settings: Config["blocking"]): BlockResponse {
  return {
    mode: settings.defaultResponse,
    customIPs: settings.customIPs,
    ttl: Math.round((parseDuration(settings.blockTTL) ?? 600_000) / 1000),
  };
}
