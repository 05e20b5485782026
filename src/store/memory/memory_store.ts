/**
 * The memory driver: everything in Maps, for tests and throwaway runs. It
 * keeps a bounded change feed so watches can resume, runtime values, and an
 * audit list tests can read.
 */
import {
  formatKey,
  type KObject,
  type ObjectKey,
} from "../../api/v1alpha1/meta.ts";
import { defaultValidator, type ObjectValidator } from "../apply_rules.ts";
import {
  type AuditEntry,
  type FeedEntry,
  RUNTIME_AUDIT_KIND,
  type StoreBackend,
} from "../backend.ts";
import { createBackedStore } from "../backed_store.ts";
import type { AuditPage, AuditQuery } from "../audit_query.ts";
import { runtimeAuditBodies } from "../audit_body.ts";
import { queryMemoryAudit } from "./memory_audit.ts";
import {
  compareObjectPosition,
  type PagePosition,
  positionOf,
} from "../pagination.ts";
import {
  ExpiredError,
  type RuntimeValue,
  SCHEMA_VERSION,
  type Store,
} from "../store.ts";

export interface MemoryStoreOptions {
  /** @default the kudurru.io/v1alpha1 schemas */
  validate?: ObjectValidator;
  /** @default () => new Date() */
  now?: () => Date;
  /** Changes kept for watch resume. @default 10000 */
  feedLimit?: number;
  /** The name leader() reports. @default the hostname, or "local" */
  node?: string;
}

/**
 * The first index of `sorted` (ordered by compareObjectPosition) whose
 * position is above `pos`, or at or above it when `inclusive`.
 */
function searchPosition(
  sorted: readonly KObject[],
  pos: PagePosition,
  inclusive: boolean,
): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareObjectPosition(positionOf(sorted[mid]!), pos);
    if (c > 0 || (inclusive && c === 0)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** An audit row of the memory driver. */
export interface MemoryAuditRow extends AuditEntry {
  key: ObjectKey;
  resourceVersion: number;
}

class MemoryBackend implements StoreBackend {
  readonly driver = "memory";
  readonly audit: MemoryAuditRow[] = [];
  #objects = new Map<string, KObject>();
  /** The same objects per kind, ordered by (namespace, name), for scans and pages. */
  #byKind = new Map<string, KObject[]>();
  #runtime = new Map<string, RuntimeValue>();
  #feed: FeedEntry[] = [];
  #resourceVersion = 0;
  #clusterID = crypto.randomUUID();

  constructor(private readonly feedLimit: number) {}

  read(key: ObjectKey): KObject | undefined {
    const obj = this.#objects.get(formatKey(key));
    return obj && structuredClone(obj);
  }

  scan(
    kind: string,
    namespace?: string,
  ): { items: KObject[]; resourceVersion: number } {
    return this.#page(kind, namespace, undefined, Infinity);
  }

  scanPage(
    kind: string,
    namespace: string | undefined,
    after: PagePosition | undefined,
    limit: number,
  ): { items: KObject[]; resourceVersion: number } {
    return this.#page(kind, namespace, after, limit);
  }

  #page(
    kind: string,
    namespace: string | undefined,
    after: PagePosition | undefined,
    limit: number,
  ): { items: KObject[]; resourceVersion: number } {
    const sorted = this.#byKind.get(kind) ?? [];
    let start = after === undefined ? 0 : searchPosition(sorted, after, false);
    if (namespace !== undefined) {
      // "" is the least name: the namespace's first object.
      start = Math.max(
        start,
        searchPosition(sorted, { namespace, name: "" }, true),
      );
    }
    const items: KObject[] = [];
    for (let i = start; i < sorted.length && items.length < limit; i++) {
      const obj = sorted[i]!;
      if (
        namespace !== undefined && (obj.metadata.namespace ?? "") !== namespace
      ) break;
      items.push(structuredClone(obj));
    }
    return { items, resourceVersion: this.#resourceVersion };
  }

  readTogether<T>(fn: () => T): T {
    // Single-threaded and synchronous: nothing writes while fn runs.
    return fn();
  }

  kinds(): string[] {
    return [...this.#byKind.keys()];
  }

  /** Keeps #byKind in step with a write of `object` (removed when `deleted`). */
  #index(object: KObject, deleted: boolean): void {
    let sorted = this.#byKind.get(object.kind);
    if (sorted === undefined) {
      if (deleted) return;
      sorted = [];
      this.#byKind.set(object.kind, sorted);
    }
    const pos = positionOf(object);
    const i = searchPosition(sorted, pos, true);
    const present = i < sorted.length &&
      compareObjectPosition(positionOf(sorted[i]!), pos) === 0;
    if (deleted) {
      if (present) sorted.splice(i, 1);
      if (sorted.length === 0) this.#byKind.delete(object.kind);
    } else if (present) sorted[i] = object;
    else sorted.splice(i, 0, object);
  }

  transact<T>(
    key: ObjectKey,
    decide: Parameters<StoreBackend["transact"]>[1],
  ): T {
    // Single-threaded and synchronous: deciding and writing cannot interleave.
    const { mutation, result } = decide(
      this.read(key),
      this.#resourceVersion + 1,
    );
    if (mutation === undefined) return result as T;
    const rv = ++this.#resourceVersion;
    const object = structuredClone(mutation.object);
    if (mutation.type === "Deleted") this.#objects.delete(formatKey(key));
    else this.#objects.set(formatKey(key), object);
    this.#index(object, mutation.type === "Deleted");
    this.#feed.push({ resourceVersion: rv, type: mutation.type, object });
    if (this.#feed.length > this.feedLimit) {
      this.#feed.splice(0, this.#feed.length - this.feedLimit);
    }
    this.audit.push({ ...mutation.audit, key, resourceVersion: rv });
    return result as T;
  }

  currentResourceVersion(): number {
    return this.#resourceVersion;
  }

  changesSince(
    resourceVersion: number,
  ): { changes: FeedEntry[]; resourceVersion: number } {
    const current = this.#resourceVersion;
    if (resourceVersion >= current) {
      return { changes: [], resourceVersion: current };
    }
    // The feed holds consecutive versions, oldest first.
    const oldest = this.#feed[0]?.resourceVersion ?? current + 1;
    if (resourceVersion + 1 < oldest) {
      throw new ExpiredError(String(resourceVersion));
    }
    const changes = this.#feed.slice(resourceVersion + 1 - oldest).map((c) =>
      structuredClone(c)
    );
    return { changes, resourceVersion: current };
  }

  info() {
    return {
      schemaVersion: SCHEMA_VERSION,
      clusterID: this.#clusterID,
      epoch: 1,
    };
  }

  readRuntime(key: string): RuntimeValue | undefined {
    const value = this.#runtime.get(key);
    return value && { ...value };
  }

  writeRuntime(
    key: string,
    value: RuntimeValue | undefined,
    audit: AuditEntry,
  ): boolean {
    const before = this.#runtime.get(key);
    if (value === undefined) {
      if (!this.#runtime.delete(key)) return false;
    } else {
      this.#runtime.set(key, { ...value });
    }
    this.audit.push({
      ...audit,
      ...runtimeAuditBodies(before, value),
      key: { kind: RUNTIME_AUDIT_KIND, namespace: "", name: key },
      resourceVersion: this.#resourceVersion,
    });
    return true;
  }

  appendAudit(key: ObjectKey, audit: AuditEntry): void {
    this.audit.push({ ...audit, key, resourceVersion: this.#resourceVersion });
  }

  readAudit(query: AuditQuery): AuditPage {
    return queryMemoryAudit(this.audit, query);
  }

  close(): void {
    this.#objects.clear();
    this.#byKind.clear();
    this.#runtime.clear();
    this.#feed = [];
  }
}

/** A memory Store plus its audit rows, for tests that check auditing. */
export type MemoryStore = Store & { readonly audit: readonly MemoryAuditRow[] };

/** A fresh, empty memory Store. */
export function createMemoryStore(opts: MemoryStoreOptions = {}): MemoryStore {
  const backend = new MemoryBackend(opts.feedLimit ?? 10_000);
  const store = createBackedStore(backend, {
    validator: opts.validate ?? defaultValidator,
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.node !== undefined ? { node: opts.node } : {}),
  });
  return Object.assign(store, { audit: backend.audit });
}
