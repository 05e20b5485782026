/**
 * Zones and records as the API gives them (docs/api.md "Zones and
 * records"), and the bodies the zone pages send: a new zone, a merge patch
 * of one, a record to add. Form values are strings; what the API would
 * refuse is sent as typed, so that its message names the field.
 */
import { fill, strings } from "./strings.ts";

/** A DNSZone object (src/api/v1alpha1/dnszone.ts), as far as the pages read it. */
export interface Zone {
  metadata: {
    name: string;
    managedBy?: string;
    resourceVersion?: string;
    /** Moves with the spec only; status writes leave it. */
    generation?: number;
    creationTimestamp?: string;
  };
  spec: {
    zoneName: string;
    type: string;
    soa?: Soa;
    nameservers?: string[];
    defaultTTL?: number;
    forward?: { upstreamGroup: string };
    secondary?: { primaries: string[]; tsigKeyRef?: string };
  };
  status?: {
    serial?: number;
    recordCount?: number;
    lastTransfer?: string;
    lastRefresh?: string;
    conditions?: Condition[];
  };
}

export interface Soa {
  mname: string;
  rname: string;
  refresh?: number;
  retry?: number;
  expire?: number;
  minimum?: number;
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** One row of GET …/dnszones/{zone}/records. */
export interface RecordRow {
  recordSet: { namespace: string; name: string };
  managedBy: string;
  name: string;
  type: string;
  ttl: number;
  data: string;
  disabled?: true;
}

/** Why the zone would not serve a record set's endpoint. */
export interface Problem {
  recordSet: { namespace: string; name: string };
  reason: string;
  message: string;
  endpoint: number;
}

/** The answer of POST …/zonefile (with or without dryRun). */
export interface ImportReport {
  imported: number;
  alreadyPresent: number;
  skipped: { line: number; text: string; reason: string }[];
  skippedCount: number;
  recordSets: { namespace: string; name: string; action: string }[];
  problems: Problem[];
  dryRun: boolean;
}

/** The SOA fields a form edits, in the order it shows them. */
export const SOA_FIELDS = [
  "mname",
  "rname",
  "refresh",
  "retry",
  "expire",
  "minimum",
] as const;
export type SoaField = (typeof SOA_FIELDS)[number];

/** The zone form's values (new zone and edit share them). */
export interface ZoneForm extends Record<SoaField, string> {
  name: string;
  zoneName: string;
  nameservers: string;
  defaultTTL: string;
}

/** The record form's values. */
export interface RecordForm {
  name: string;
  type: string;
  ttl: string;
  data: string;
}

/** Ready, not ready (with the reason), or not yet said. */
export interface ReadyState {
  state: "ready" | "not-ready" | "pending";
  label: string;
  /** The condition's message, when it has one. */
  message?: string;
}

export function readyOf(zone: Zone): ReadyState {
  const t = strings.zones;
  const ready = zone.status?.conditions?.find((c) => c.type === "Ready");
  if (ready === undefined || ready.status === "Unknown") {
    return withMessage({ state: "pending", label: t.readyPending }, ready);
  }
  if (ready.status === "True") {
    return withMessage({ state: "ready", label: t.readyYes }, ready);
  }
  return withMessage({
    state: "not-ready",
    label: ready.reason ? `${t.readyNo}: ${ready.reason}` : t.readyNo,
  }, ready);
}

function withMessage(state: ReadyState, c: Condition | undefined): ReadyState {
  return c?.message ? { ...state, message: c.message } : state;
}

/** Who manages an object, in words ("file objects.d/zones.yaml", "the API"). */
export function managerLabel(managedBy: string | undefined): string {
  const m = strings.zones.managers;
  if (managedBy === undefined || managedBy === "") return m.none;
  if (managedBy === "api") return m.api;
  if (managedBy === "bootstrap") return m.bootstrap;
  if (managedBy.startsWith("file:")) {
    return fill(m.file, { file: managedBy.slice(5) });
  }
  if (managedBy.startsWith("integration:")) {
    return fill(m.integration, { name: managedBy.slice(12) });
  }
  return managedBy;
}

/** Why an object is not changed here, and where it is. */
export function managedNote(managedBy: string | undefined): string {
  const t = strings.zones;
  return managedBy === "bootstrap"
    ? t.bootstrapNote
    : fill(t.managedNote, { manager: managerLabel(managedBy) });
}

/**
 * Whether the API may change it: only what the API manages (a file's, the
 * first start's or an integration's objects answer 409 managed_by).
 */
export function apiManaged(managedBy: string | undefined): boolean {
  return managedBy === "api";
}

/** An SOA as a zone file writes it, without the serial: mname rname refresh retry expire minimum. */
export function soaText(soa: Soa): string {
  return [
    soa.mname,
    soa.rname,
    soa.refresh,
    soa.retry,
    soa.expire,
    soa.minimum,
  ].filter((v) => v !== undefined).join(" ");
}

/** A name made absolute: the final dot added when it is missing. */
export function absolute(name: string): string {
  const trimmed = name.trim();
  return trimmed === "" || trimmed.endsWith(".") ? trimmed : `${trimmed}.`;
}

/** Names separated by spaces, commas or lines; each made absolute. */
export function nameList(text: string): string[] {
  return text.split(/[\s,]+/).filter((n) => n !== "").map(absolute);
}

/**
 * A number field: undefined when empty; the number when it is one; else
 * the text itself, for the API to refuse with its own message.
 */
export function numberOrText(text: string): number | string | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  return /^\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
}

/** An empty zone form (a new zone). */
export function emptyZoneForm(): ZoneForm {
  return {
    name: "",
    zoneName: "",
    mname: "",
    rname: "",
    refresh: "",
    retry: "",
    expire: "",
    minimum: "",
    nameservers: "",
    defaultTTL: "",
  };
}

/** The form holding a zone's values (to edit it). */
export function zoneFormOf(zone: Zone): ZoneForm {
  const soa = zone.spec.soa;
  const text = (v: string | number | undefined) =>
    v === undefined ? "" : String(v);
  return {
    name: zone.metadata.name,
    zoneName: zone.spec.zoneName,
    mname: text(soa?.mname),
    rname: text(soa?.rname),
    refresh: text(soa?.refresh),
    retry: text(soa?.retry),
    expire: text(soa?.expire),
    minimum: text(soa?.minimum),
    nameservers: (zone.spec.nameservers ?? []).join("\n"),
    defaultTTL: text(zone.spec.defaultTTL),
  };
}

/** The form's SOA, or undefined when none of its fields is filled. */
function soaOf(form: ZoneForm): Record<string, unknown> | undefined {
  if (SOA_FIELDS.every((f) => form[f].trim() === "")) return undefined;
  const soa: Record<string, unknown> = {};
  if (form.mname.trim() !== "") soa.mname = absolute(form.mname);
  if (form.rname.trim() !== "") soa.rname = absolute(form.rname);
  for (const f of ["refresh", "retry", "expire", "minimum"] as const) {
    const value = numberOrText(form[f]);
    if (value !== undefined) soa[f] = value;
  }
  return soa;
}

/** POST /api/v1/dnszones: a primary zone. */
export function newZoneBody(form: ZoneForm): Record<string, unknown> {
  const soa = soaOf(form);
  const nameservers = nameList(form.nameservers);
  const defaultTTL = numberOrText(form.defaultTTL);
  return {
    metadata: { name: form.name.trim() },
    spec: {
      zoneName: absolute(form.zoneName),
      type: "primary",
      ...(soa !== undefined && { soa }),
      ...(nameservers.length > 0 && { nameservers }),
      ...(defaultTTL !== undefined && { defaultTTL }),
    },
  };
}

/**
 * The merge patch (RFC 7396) of what the form changed since `before`
 * (the zone as it was read): what was not touched is left out, so a change
 * made elsewhere to another field stays; a cleared field is null, so the
 * server's default applies again. undefined when nothing changed.
 */
export function zonePatch(
  before: ZoneForm,
  after: ZoneForm,
): Record<string, unknown> | undefined {
  const spec: Record<string, unknown> = {};
  const changed = (f: keyof ZoneForm) => before[f].trim() !== after[f].trim();
  const soaChanged = SOA_FIELDS.filter(changed);
  if (soaChanged.length > 0) {
    if (SOA_FIELDS.every((f) => after[f].trim() === "")) spec.soa = null;
    else {
      const soa: Record<string, unknown> = {};
      for (const f of soaChanged) {
        const value = f === "mname" || f === "rname"
          ? absolute(after[f])
          : numberOrText(after[f]);
        soa[f] = value === undefined || value === "" ? null : value;
      }
      spec.soa = soa;
    }
  }
  if (changed("nameservers")) {
    const nameservers = nameList(after.nameservers);
    spec.nameservers = nameservers.length > 0 ? nameservers : null;
  }
  if (changed("defaultTTL")) {
    spec.defaultTTL = numberOrText(after.defaultTTL) ?? null;
  }
  return Object.keys(spec).length > 0 ? { spec } : undefined;
}

/**
 * Whether a zone read again (after a 409 conflict) differs from the one an
 * edit was based on only in its status: the controller writes the serial
 * and conditions after every change, which moves the resourceVersion but
 * not the generation. Such an edit is sent again on the new version.
 */
export function onlyStatusMoved(read: Zone, now: Zone): boolean {
  return read.metadata.generation !== undefined &&
    read.metadata.generation === now.metadata.generation;
}

/** POST …/records: {name, type, ttl?, data}. */
export function recordBody(form: RecordForm): Record<string, unknown> {
  const ttl = numberOrText(form.ttl);
  return {
    name: form.name.trim(),
    type: form.type.trim().toUpperCase(),
    ...(ttl !== undefined && { ttl }),
    data: form.data.trim(),
  };
}

/** DELETE …/records: the row's name, type and data. */
export function removeBody(row: RecordRow): Record<string, string> {
  return { name: row.name, type: row.type, data: row.data };
}
