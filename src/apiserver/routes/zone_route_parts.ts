/**
 * What the zone record routes (zone_record_routes.ts) and the zone file
 * routes (zone_file_routes.ts) share: their dependencies, the `{zone}`
 * parameter and the schemas both answer with, the zone scope of their
 * guards, reading the zone and its record sets, and writing the record sets
 * an edit changed.
 */
import type { ZoneContent } from "../../zone/types.ts";
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { DNSZone } from "../../api/v1alpha1/dnszone.ts";
import type { DNSRecordSet } from "../../api/v1alpha1/dnsrecordset.ts";
import { validateObject } from "../../api/v1alpha1/validate.ts";
import type { RecordSetProblem } from "../../zone/content_checks.ts";
import { buildZoneContent } from "../../zone/content.ts";
import {
  InvalidObjectError,
  type ObjectKey,
  originOptions,
  type Store,
  type WriteOrigin,
} from "../../store/store.ts";
import { ApiError } from "../errors.ts";
import { API_MANAGER } from "./objects.ts";
import type { RecordSetChange } from "./zone_records.ts";

export interface ZoneRoutesDeps {
  store: Store;
  /** The clock for disabled and expiring endpoints in the export. @default Date.now */
  now?: () => number;
  /**
   * Bounds of an import: UTF-8 bytes of the file (413 past it) and records
   * in it (413). @default MAX_ZONE_FILE_BYTES (4 MiB), MAX_ZONE_FILE_RECORDS (100,000)
   */
  limits?: { bytes?: number; records?: number };
  /** Why objects cannot be written here now, if they cannot (a static node): writes are 409 read_only. */
  readOnlyReason?(): string | undefined;
  /**
   * What the listeners serve for a zone name: a secondary zone's records
   * are its transferred copy, not DNSRecordSets.
   */
  servedContent?(zoneName: string): ZoneContent | undefined;
}

/** Most problems a write's answer lists. */
const MAX_REPORTED_PROBLEMS = 100;

/** The NS record type's code. */
export const NS = 2;

export const zoneParam = z.object({
  zone: z.string().openapi({ description: "The DNSZone object's name" }),
});

export const recordSetRef = z.object({
  namespace: z.string(),
  name: z.string(),
});

export const problem = z.object({
  recordSet: recordSetRef,
  reason: z.string(),
  message: z.string(),
  endpoint: z.number().int(),
});

export const zoneScope = (c: Context) => ({
  kind: "zone" as const,
  name: c.req.param("zone")!,
});

/** 409 read_only on a node whose objects cannot be written (objects.ts does the same). */
export async function getZone(store: Store, name: string): Promise<DNSZone> {
  return await store.get({ kind: "DNSZone", namespace: "", name }) as DNSZone;
}

export async function listRecordSets(store: Store): Promise<DNSRecordSet[]> {
  return (await store.list("DNSRecordSet")).items as DNSRecordSet[];
}

export function requirePrimary(zone: DNSZone): void {
  if (zone.spec?.type === "primary") return;
  throw new ApiError(
    "bad_request",
    `DNSZone ${zone.metadata.name} is a ${zone.spec?.type} zone: it holds no records of its own`,
  );
}

/**
 * Writes the changed record sets, each checked by the Store's schema first
 * so that an invalid one (422 naming the field) leaves every one unwritten.
 * Updates and deletes are conditional on the version read.
 */
export async function writeChanges(
  store: Store,
  changes: readonly RecordSetChange[],
  origin: WriteOrigin,
): Promise<void> {
  checkChanges(changes);
  for (const change of changes) {
    const options = {
      manager: API_MANAGER,
      ...originOptions(origin),
      ...(change.readAt !== undefined &&
        { expectedResourceVersion: change.readAt }),
    };
    if (change.action === "delete") {
      await store.delete(keyOf(change.object), options);
    } else {
      await store.apply(change.object, options);
    }
  }
}

/** The Store's schema check of every record set to write: InvalidObjectError (422) for the first that fails. */
export function checkChanges(changes: readonly RecordSetChange[]): void {
  for (const change of changes) {
    if (change.action === "delete") continue;
    const result = validateObject(change.object);
    if (!result.ok) {
      throw new InvalidObjectError(keyOf(change.object), result.issues);
    }
  }
}

function keyOf(set: DNSRecordSet): ObjectKey {
  return {
    kind: "DNSRecordSet",
    namespace: set.metadata.namespace ?? "",
    name: set.metadata.name,
  };
}

/** What a build of the zone after the edits says about the record sets written. */
export function problemsOf(
  zone: DNSZone,
  sets: DNSRecordSet[],
  now: number,
  changes: readonly RecordSetChange[],
): RecordSetProblem[] {
  const written = new Set(
    changes.map((ch) =>
      `${ch.object.metadata.namespace}/${ch.object.metadata.name}`
    ),
  );
  return buildZoneContent(zone, sets, new Date(now)).problems
    .filter((p) => written.has(`${p.recordSet.namespace}/${p.recordSet.name}`))
    .slice(0, MAX_REPORTED_PROBLEMS);
}
