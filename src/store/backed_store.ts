/**
 * A Store on top of a StoreBackend: the Apply contract (apply_rules.ts), list
 * filtering and pagination, watch fan-out, snapshots and the always-leader
 * elector, written once for the memory and sqlite drivers.
 */
import { keyOf, type KObject, type ObjectKey } from "../api/v1alpha1/meta.ts";
import { KINDS } from "../api/v1alpha1/kinds.ts";
import { createLogger, type Logger } from "../log/logger.ts";
import {
  type ObjectValidator,
  planApply,
  planDelete,
  planStatus,
  validateOrThrow,
} from "./apply_rules.ts";
import type {
  AuditEntry,
  FeedEntry,
  Mutation,
  StoreBackend,
} from "./backend.ts";
import {
  alwaysLeaderElector,
  defaultNodeName,
} from "./always_leader_elector.ts";
import { matchesLabels, parseLabelSelector } from "./label_selector.ts";
import { pageOf, readPage } from "./pagination.ts";
import { planRuntimeWrite } from "./runtime_values.ts";
import { auditBodies } from "./audit_body.ts";
import { restoreYaml, snapshotYaml } from "./snapshot.ts";
import {
  type ApplyOptions,
  type DeleteOptions,
  ExpiredError,
  type ListOptions,
  NotFoundError,
  type ObjectList,
  type OperationRecord,
  type RequestOrigin,
  type RuntimeValue,
  type SetRuntimeOptions,
  type SnapshotOptions,
  type Store,
  type StoreInfo,
  type Watcher,
  type WatchEvent,
  type WatchOptions,
} from "./store.ts";
import { type WatchFilter, WatchHub } from "./watch_hub.ts";

export interface BackedStoreOptions {
  validator: ObjectValidator;
  /** @default () => new Date() */
  now?: () => Date;
  /** The name leader() reports. @default the hostname, or "local" */
  node?: string;
  /** Re-read the change feed this often, to see other processes' writes; omit for never. */
  pollIntervalMs?: number;
  logger?: Logger;
}

function withResourceVersion(obj: KObject, rv: number): KObject {
  const copy = structuredClone(obj);
  copy.metadata.resourceVersion = String(rv);
  return copy;
}

function toEvent(entry: FeedEntry): WatchEvent {
  return {
    type: entry.type,
    object: entry.object,
    resourceVersion: String(entry.resourceVersion),
  };
}

/**
 * Kinds in KINDS order, then any others the backend holds, alphabetically
 * (the internal kinds: accounts and tokens). A safe export has KINDS only:
 * it is meant to be shared, and password and token hashes are not.
 */
function snapshotKinds(present: string[], safe: boolean): string[] {
  const known = KINDS.map((k) => k.kind);
  if (safe) return known;
  return [...known, ...present.filter((k) => !known.includes(k)).sort()];
}

/** Runs fn now; a throw becomes a rejection, so callers see one error path. */
function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}

export function createBackedStore(
  backend: StoreBackend,
  opts: BackedStoreOptions,
): Store {
  const { validator } = opts;
  const now = opts.now ?? (() => new Date());
  const node = opts.node ?? defaultNodeName();
  const log = (opts.logger ?? createLogger()).with({
    component: "store",
    driver: backend.driver,
  });
  const hub = new WatchHub();
  let published = backend.currentResourceVersion();
  let closed = false;

  /** Publishes every committed change not yet published, in order. */
  function pump(): void {
    if (hub.size === 0) {
      published = backend.currentResourceVersion();
      return;
    }
    let feed: { changes: FeedEntry[]; resourceVersion: number };
    try {
      feed = backend.changesSince(published);
    } catch (err) {
      if (!(err instanceof ExpiredError)) throw err;
      // Another writer outran the feed between two polls: watchers must re-list.
      hub.failAll(err);
      published = backend.currentResourceVersion();
      return;
    }
    for (const c of feed.changes) hub.publish(c.object.kind, toEvent(c));
    published = Math.max(published, feed.resourceVersion);
  }

  const timer = opts.pollIntervalMs === undefined
    ? undefined
    : setInterval(() => {
      try {
        pump();
      } catch (err) {
        log.warn("Cannot read the change feed", { error: err });
      }
    }, opts.pollIntervalMs);
  if (timer !== undefined) Deno.unrefTimer(timer);

  function open(): void {
    if (closed) {
      throw new Error(`Cannot use the ${backend.driver} store: it is closed`);
    }
  }

  /** The audit row of a write of `obj`, from `before` (stored) to `after`. */
  function audit(
    action: string,
    origin: RequestOrigin & { actor?: string | undefined },
    manager: string,
    obj: KObject,
    before: KObject | undefined,
    after: KObject | undefined,
  ): AuditEntry {
    return {
      time: now().toISOString(),
      actor: origin.actor ?? manager,
      manager,
      action,
      generation: obj.metadata.generation ?? 0,
      ...(origin.authorization !== undefined &&
        { authorization: origin.authorization }),
      ...(origin.client !== undefined && { client: origin.client }),
      ...auditBodies(before, after, { statusOnly: action === "status" }),
    };
  }

  function commit<T>(
    key: ObjectKey,
    decide: Parameters<StoreBackend["transact"]>[1],
  ): T {
    open();
    const result = backend.transact(key, decide) as T;
    pump();
    return result;
  }

  function applyNow(obj: KObject, ao: ApplyOptions): KObject {
    open();
    // Validate once up front so defaults (e.g. a namespace) settle the key.
    const key = keyOf(validateOrThrow(validator, obj));
    return commit(key, (stored, nextRV) => {
      const plan = planApply(stored, obj, ao, validator, now);
      if (plan.outcome === "unchanged") return { result: plan.object };
      const object = withResourceVersion(plan.object, nextRV);
      const type = plan.outcome === "created"
        ? "Added"
        : plan.outcome === "removed"
        ? "Deleted"
        : "Modified";
      const action = plan.outcome === "created"
        ? "create"
        : plan.outcome === "removed"
        ? "delete"
        : "update";
      const mutation: Mutation = {
        type,
        object,
        audit: audit(
          action,
          ao,
          ao.manager,
          object,
          stored,
          plan.outcome === "removed" ? undefined : object,
        ),
      };
      return { mutation, result: object };
    });
  }

  function deleteNow(key: ObjectKey, dopts: DeleteOptions): void {
    commit(key, (stored, nextRV) => {
      if (stored === undefined) throw new NotFoundError(key);
      const plan = planDelete(key, stored, dopts, now);
      if (plan.outcome === "unchanged") return { result: undefined };
      const object = withResourceVersion(plan.object, nextRV);
      const manager = dopts.manager ?? stored.metadata.managedBy ?? "";
      const mutation: Mutation = {
        type: plan.outcome === "removed" ? "Deleted" : "Modified",
        object,
        audit: audit(
          plan.outcome === "removed" ? "delete" : "finalize",
          dopts,
          manager,
          object,
          stored,
          plan.outcome === "removed" ? undefined : object,
        ),
      };
      return { mutation, result: undefined };
    });
  }

  function updateStatusNow(obj: KObject): KObject {
    const key = keyOf(obj);
    return commit(key, (stored, nextRV) => {
      if (stored === undefined) throw new NotFoundError(key);
      const plan = planStatus(stored, obj, validator);
      if (plan.outcome === "unchanged") return { result: plan.object };
      const object = withResourceVersion(plan.object, nextRV);
      const manager = stored.metadata.managedBy ?? "";
      return {
        mutation: {
          type: "Modified",
          object,
          audit: audit(
            "status",
            { actor: "system" },
            manager,
            object,
            stored,
            object,
          ),
        },
        result: object,
      };
    });
  }

  function watchNow(kind: string, wo: WatchOptions): Watcher {
    open();
    const filter: WatchFilter = wo.namespace === undefined
      ? { kind }
      : { kind, namespace: wo.namespace };
    if (wo.resourceVersion === undefined || wo.resourceVersion === "") {
      const { items, resourceVersion } = backend.scan(kind, wo.namespace);
      const initial: WatchEvent[] = items.map((object) => ({
        type: "Added",
        object,
        resourceVersion: object.metadata.resourceVersion ?? "0",
      }));
      initial.push({
        type: "Bookmark",
        resourceVersion: String(resourceVersion),
      });
      return hub.open(filter, resourceVersion, initial, wo.signal);
    }
    const from = Number(wo.resourceVersion);
    if (!Number.isSafeInteger(from) || from < 0) {
      return hub.failed(
        new Error(
          `Cannot watch ${kind}: resourceVersion "${wo.resourceVersion}" is not a number`,
        ),
      );
    }
    try {
      const feed = backend.changesSince(from);
      const initial = feed.changes
        .filter((c) =>
          c.object.kind === kind &&
          (wo.namespace === undefined ||
            (c.object.metadata.namespace ?? "") === wo.namespace)
        )
        .map(toEvent);
      return hub.open(filter, feed.resourceVersion, initial, wo.signal);
    } catch (err) {
      return hub.failed(err);
    }
  }

  function listNow(kind: string, lo: ListOptions): ObjectList {
    open();
    const selector = parseLabelSelector(lo.labelSelector ?? "");
    const accept = (o: KObject) => matchesLabels(selector, o.metadata.labels);
    const limit = lo.limit;
    let page: { items: KObject[]; continue?: string };
    let resourceVersion: number;
    if (limit !== undefined && Number.isSafeInteger(limit) && limit > 0) {
      // A page reads only what it holds (keyset reads after the token), all
      // in one read of the store, so resourceVersion holds for every object.
      ({ page, resourceVersion } = backend.readTogether(() => {
        let rv = 0; // readPage reads at least once (or throws)
        const page = readPage(
          (after, n) => {
            const read = backend.scanPage(kind, lo.namespace, after, n);
            rv = read.resourceVersion;
            return read.items;
          },
          limit,
          lo.continue,
          accept,
        );
        return { page, resourceVersion: rv };
      }));
    } else {
      const scanned = backend.scan(kind, lo.namespace);
      resourceVersion = scanned.resourceVersion;
      page = pageOf(scanned.items.filter(accept), lo.limit, lo.continue);
    }
    const list: ObjectList = {
      items: page.items,
      resourceVersion: String(resourceVersion),
    };
    if (page.continue !== undefined) list.continue = page.continue;
    return list;
  }

  function setRuntimeNow(
    key: string,
    value: string | null,
    ro: SetRuntimeOptions,
  ): RuntimeValue | undefined {
    open();
    const write = planRuntimeWrite(key, value, ro, now());
    backend.writeRuntime(key, write.value, write.audit);
    return write.value && { ...write.value };
  }

  const store: Store = {
    get: (key) =>
      settle(() => {
        open();
        const obj = backend.read(key);
        if (obj === undefined) throw new NotFoundError(key);
        return obj;
      }),
    list: (kind, lo = {}) => settle(() => listNow(kind, lo)),
    apply: (obj, ao) => settle(() => applyNow(obj, ao)),
    delete: (key, dopts = {}) => settle(() => deleteNow(key, dopts)),
    updateStatus: (obj) => settle(() => updateStatusNow(obj)),
    watch: (kind, wo = {}) => watchNow(kind, wo),
    elector: () => alwaysLeaderElector(node),
    snapshot: (so: SnapshotOptions = {}) =>
      snapshotYaml(store, so, snapshotKinds(backend.kinds(), so.safe === true)),
    restore: (text) => restoreYaml(store, text, validator),
    info(): StoreInfo {
      return { driver: backend.driver, ...backend.info(), leader: node };
    },
    getRuntime: (key) =>
      settle(() => {
        open();
        return backend.readRuntime(key);
      }),
    setRuntime: (key, value, ro = {}) =>
      settle(() => setRuntimeNow(key, value, ro)),
    readAudit: (query = {}) =>
      settle(() => {
        open();
        return backend.readAudit(query);
      }),
    recordOperation: (op) =>
      settle(() => {
        open();
        backend.appendAudit(op.key, operationAudit(op, now()));
      }),
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      hub.close();
      backend.close();
      return Promise.resolve();
    },
  };
  return store;
}

/** The audit row of an operation: no before; `after` as the caller gave it. */
function operationAudit(op: OperationRecord, at: Date): AuditEntry {
  return {
    time: at.toISOString(),
    actor: op.actor,
    manager: "operation",
    action: op.action,
    generation: 0,
    ...(op.authorization !== undefined &&
      { authorization: op.authorization }),
    ...(op.client !== undefined && { client: op.client }),
    ...(op.after !== undefined && { after: structuredClone(op.after) }),
  };
}
