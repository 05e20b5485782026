/**
 * The Store: the seam everything configuration-related depends on
 * (docs/design.md#the-store).
 * Drivers: memory/ (tests), sqlite/ (single node), kube/ (later). All of them
 * pass the same conformance suite in conformance.ts.
 */
import type { KObject, ObjectKey } from "../api/v1alpha1/meta.ts";
import type { AuditPage, AuditQuery } from "./audit_query.ts";

export type { KObject, ObjectKey };
export type { AuditPage, AuditQuery };

/**
 * Bumped whenever the on-disk layout of any driver changes.
 * 2: the sqlite `runtime` table behind getRuntime/setRuntime.
 * 3: audit rows carry authorization, client, before and after.
 */
export const SCHEMA_VERSION = 3;

/**
 * How a write was asked for, for its audit row (schema 3): every API and
 * control-socket write says it; the loader, controllers and the CLI leave
 * it out.
 */
export interface RequestOrigin {
  /** How the caller proved who it is: "session", "token <id>", "socket". */
  authorization?: string;
  /** The client's address. */
  client?: string;
}

/** Who writes, for the audit row: an actor's name, or with its RequestOrigin. */
export type WriteOrigin = string | ({ actor: string } & RequestOrigin);

/** The write options an origin gives (actor, authorization, client). */
export function originOptions(
  origin: WriteOrigin,
): { actor: string } & RequestOrigin {
  return typeof origin === "string" ? { actor: origin } : origin;
}

export interface ListOptions {
  /** Only objects in this namespace; omit for all namespaces. */
  namespace?: string;
  /** Kubernetes label selector: `a=b,c!=d,e,!f,g in (x,y),h notin (z)`. */
  labelSelector?: string;
  /** Page size; omit for everything. */
  limit?: number;
  /** The `continue` token of the previous page (keyset pagination). */
  continue?: string;
}

export interface ObjectList {
  items: KObject[];
  /** Present when more items follow; pass back as ListOptions.continue. */
  continue?: string;
  /** The store's resourceVersion when the list was read; a watch can resume from it. */
  resourceVersion: string;
}

export interface ApplyOptions extends RequestOrigin {
  /** api | file:<source> | integration:<name> | bootstrap | system; becomes metadata.managedBy. */
  manager: string;
  /** Optimistic concurrency: the apply fails with ConflictError unless the stored object has it. */
  expectedResourceVersion?: string;
  /** Whole-object takeover from another manager (admin only, audited). */
  force?: boolean;
  /** Who asked, for the audit row (a user, "file-loader", "bootstrap"…). */
  actor?: string;
}

export interface DeleteOptions extends RequestOrigin {
  /** When set, the stored object must be managed by it (or force must be set). */
  manager?: string;
  force?: boolean;
  expectedResourceVersion?: string;
  actor?: string;
}

export type WatchEventType = "Added" | "Modified" | "Deleted" | "Bookmark";

export interface WatchEvent {
  type: WatchEventType;
  /** The object after the change (for Deleted: the last stored state). Bookmarks carry none. */
  object?: KObject;
  resourceVersion: string;
}

export interface WatchOptions {
  /**
   * Resume after this resourceVersion. Omitted: every current object is sent
   * as Added, then a Bookmark, then live changes.
   */
  resourceVersion?: string;
  namespace?: string;
  /** Ends the watch. */
  signal?: AbortSignal;
}

export interface Watcher extends AsyncIterable<WatchEvent> {
  close(): void;
}

export interface Elector {
  /** Runs until the signal aborts, calling onStarted/onStopped as leadership moves. */
  run(
    signal: AbortSignal,
    onStarted: () => void,
    onStopped: () => void,
  ): Promise<void>;
  isLeader(): boolean;
  leader(): string;
}

export interface SnapshotOptions {
  /** Leave out secrets and internal kinds (kudurru export --safe). */
  safe?: boolean;
}

export interface StoreInfo {
  driver: string;
  schemaVersion: number;
  clusterID: string;
  epoch: number;
  leader: string;
}

/**
 * One small runtime value: state that is not an object and has no spec, but
 * must reach every node and survive a restart. These are the Kudurru.status
 * fields (Kudurru.status.blocking.disabledUntil, the `kudurru blocking
 * disable` pause); the memory and sqlite drivers keep them in their own
 * table, the kube driver will keep them as annotations of the kudurru-runtime
 * ConfigMap.
 */
export interface RuntimeValue {
  /** A dotted name such as "blocking.disabledUntil" (key rules in runtime_values.ts). */
  key: string;
  value: string;
  /** When it was last set, ISO 8601 (the store's clock). */
  updatedAt: string;
  /** Who set it, when the caller said. */
  actor?: string;
}

export interface SetRuntimeOptions extends RequestOrigin {
  /** Who asked, for the audit row and RuntimeValue.actor. */
  actor?: string;
}

/**
 * An operation that changes nothing the store holds (a cache flush, a
 * block list fetched now), recorded so the one audit trail says who asked.
 */
export interface OperationRecord extends RequestOrigin {
  actor: string;
  /** What was done: "flush", "refresh". */
  action: string;
  /** What it was done to: a stored object's key, or a thing such as {kind: "Cache"}. */
  key: ObjectKey;
  /** What was asked (or what came of it), kept as the row's `after`. */
  after?: unknown;
}

export interface Store {
  /** Throws NotFoundError. */
  get(key: ObjectKey): Promise<KObject>;
  list(kind: string, opts?: ListOptions): Promise<ObjectList>;
  /**
   * Whole-object apply under the contract of apply_rules.ts
   * (docs/design.md#the-store).
   */
  apply(obj: KObject, opts: ApplyOptions): Promise<KObject>;
  /** Honours finalizers: an object that has them only gets a deletionTimestamp. */
  delete(key: ObjectKey, opts?: DeleteOptions): Promise<void>;
  /** Writes status only; spec, labels and ownership are left as stored. */
  updateStatus(obj: KObject): Promise<KObject>;
  watch(kind: string, opts?: WatchOptions): Watcher;
  elector(name: string): Elector;
  /** `kind: List` YAML of every object. */
  snapshot(opts?: SnapshotOptions): Promise<string>;
  /** Applies every object of a `kind: List` document, keeping each one's manager. */
  restore(yamlText: string): Promise<void>;
  info(): StoreInfo;
  /**
   * A runtime value (see RuntimeValue), or undefined when unset. Always reads
   * the shared copy, so a value another process or node set is seen here;
   * callers that need to notice changes poll it.
   */
  getRuntime(key: string): Promise<RuntimeValue | undefined>;
  /**
   * Sets (or, with null, deletes) a runtime value. Writes through one Store
   * apply in the order they were issued, and the last write wins.
   * Resolves to the stored value, or undefined after a delete. Audited like
   * object writes. Rejects with InvalidRuntimeValueError (runtime_values.ts)
   * for a malformed key or an oversized value.
   */
  setRuntime(
    key: string,
    value: string | null,
    opts?: SetRuntimeOptions,
  ): Promise<RuntimeValue | undefined>;
  /**
   * The audit trail, newest first, one keyset page at a time (audit_query.ts).
   * Rejects with InvalidAuditQueryError for a bad limit, time or token.
   */
  readAudit(query?: AuditQuery): Promise<AuditPage>;
  /** Writes the audit row of an operation (manager "operation"). */
  recordOperation(op: OperationRecord): Promise<void>;
  close(): Promise<void>;
}

/** The object does not exist. */
export class NotFoundError extends Error {
  constructor(readonly key: ObjectKey, options?: ErrorOptions) {
    super(
      `${key.kind} "${
        key.namespace ? key.namespace + "/" : ""
      }${key.name}" not found`,
      options,
    );
    this.name = "NotFoundError";
  }
}

/** Another manager owns the object (HTTP 409 managed_by). */
export class ManagedByError extends Error {
  constructor(
    readonly key: ObjectKey,
    readonly owner: string,
    readonly manager: string,
  ) {
    const where = key.namespace === "" ? "" : `${key.namespace}/`;
    super(
      `${key.kind} "${where}${key.name}" is managed by ${owner}, not ${manager}`,
    );
    this.name = "ManagedByError";
  }
}

/** expectedResourceVersion did not match (HTTP 409 conflict). */
export class ConflictError extends Error {
  constructor(
    readonly key: ObjectKey,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(
      `${key.kind} "${key.name}" was changed: expected resourceVersion ${expected}, found ${actual}`,
    );
    this.name = "ConflictError";
  }
}

/** The object failed validation; issues name the fields. */
export class InvalidObjectError extends Error {
  constructor(
    readonly key: ObjectKey,
    readonly issues: { path: string; message: string }[],
  ) {
    super(
      `${key.kind} "${key.name}" is invalid: ` +
        issues.map((i) => `${i.path}: ${i.message}`).join("; "),
    );
    this.name = "InvalidObjectError";
  }
}

/** A watch asked to resume from a resourceVersion the change feed no longer holds (HTTP 410). */
export class ExpiredError extends Error {
  constructor(readonly resourceVersion: string) {
    super(
      `resourceVersion ${resourceVersion} is too old to resume from; list again`,
    );
    this.name = "ExpiredError";
  }
}
