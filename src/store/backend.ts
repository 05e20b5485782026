/**
 * What a local driver (memory, sqlite) provides underneath backed_store.ts:
 * rows, a change feed and transactions. The Apply contract, watch fan-out,
 * pagination and snapshots live above it, once for every such driver.
 */
import type { KObject, ObjectKey } from "../api/v1alpha1/meta.ts";
import type { AuditExtras, AuditPage, AuditQuery } from "./audit_query.ts";
import type { PagePosition } from "./pagination.ts";
import type { RuntimeValue, WatchEventType } from "./store.ts";

/** One committed change, as the change feed holds it. */
export interface FeedEntry {
  resourceVersion: number;
  type: Exclude<WatchEventType, "Bookmark">;
  /** The object after the change; for Deleted the last stored state. */
  object: KObject;
}

/** A write decided inside a transaction. */
export interface Mutation {
  type: Exclude<WatchEventType, "Bookmark">;
  /** Carries the new resourceVersion already. */
  object: KObject;
  audit: AuditEntry;
}

/**
 * The kind audit rows of runtime values carry (their name is the key), so the
 * one audit trail answers "who turned blocking off" too.
 */
export const RUNTIME_AUDIT_KIND = "Runtime";

/**
 * One row of the audit trail, written with its mutation; the extras
 * (schema 3) say how the write was asked for and what changed, secrets
 * masked (audit_body.ts).
 */
export interface AuditEntry extends AuditExtras {
  time: string;
  actor: string;
  manager: string;
  /** create | update | delete | finalize | status; for runtime values set | delete */
  action: string;
  generation: number;
}

export interface BackendInfo {
  schemaVersion: number;
  clusterID: string;
  epoch: number;
}

export interface StoreBackend {
  readonly driver: string;
  read(key: ObjectKey): KObject | undefined;
  /** Objects of one kind ordered by (namespace, name), read together with the store's resourceVersion. */
  scan(
    kind: string,
    namespace?: string,
  ): { items: KObject[]; resourceVersion: number };
  /**
   * At most `limit` (≥ 1) objects of one kind (in one namespace when given),
   * in scan's (namespace, name) order, that come after `after` (exclusive;
   * from the first when undefined), read together with the store's
   * resourceVersion. Costs what the page holds, not what the kind does.
   */
  scanPage(
    kind: string,
    namespace: string | undefined,
    after: PagePosition | undefined,
    limit: number,
  ): { items: KObject[]; resourceVersion: number };
  /**
   * Runs fn so that every read inside it (scan, scanPage, read,
   * currentResourceVersion) sees one committed state of the store: a read
   * transaction where other processes may write. May nest.
   */
  readTogether<T>(fn: () => T): T;
  /** Kinds that have at least one object. */
  kinds(): string[];
  /**
   * Runs `decide` in one write transaction: it sees the stored object and the
   * resourceVersion a write would get, and returns the write (or none) and a
   * result. Object, change row and audit row commit together or not at all.
   */
  transact<T>(
    key: ObjectKey,
    decide: (stored: KObject | undefined, nextResourceVersion: number) => {
      mutation?: Mutation;
      result: T;
    },
  ): T;
  /** The resourceVersion of the latest committed change (0 for an empty store). */
  currentResourceVersion(): number;
  /** Changes above `resourceVersion` in order; throws ExpiredError when compacted away. */
  changesSince(
    resourceVersion: number,
  ): { changes: FeedEntry[]; resourceVersion: number };
  info(): BackendInfo;
  readRuntime(key: string): RuntimeValue | undefined;
  /**
   * Stores `value` under `key` (undefined deletes) with its audit row, in one
   * transaction. Deleting an absent key writes nothing and returns false.
   * Runtime values have no resourceVersion and no watch events. The audit
   * row gets the value's before and after from the write itself.
   */
  writeRuntime(
    key: string,
    value: RuntimeValue | undefined,
    audit: AuditEntry,
  ): boolean;
  /**
   * Writes one audit row on its own, for an operation that changes nothing
   * the store holds (a cache flush, a list refresh); it records the current
   * resourceVersion.
   */
  appendAudit(key: ObjectKey, audit: AuditEntry): void;
  /** A page of the audit trail; throws InvalidAuditQueryError. */
  readAudit(query: AuditQuery): AuditPage;
  close(): void;
}
