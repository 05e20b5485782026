/**
 * One Technitium zone export (Zones → zone → Export, `GET
 * /api/zones/export`, in Technitium's API documentation) as kudurru
 * objects. The export is an RFC 1035 zone file that Technitium's zone file
 * writer fills in its own way: `$ORIGIN` first, one record per line, a
 * disabled record followed by `;{"disabled":true,"comments":"…"}`, other
 * record comments as `;text`, and two private types:
 *
 * - `FWD` (a conditional forwarder): at the apex it makes the zone a
 *   forwarder zone, a kudurru `DNSZone type: forward`; below the apex it
 *   forwards that subtree, an `upstreams.conditional` entry;
 * - `APP` (an answer computed by a DNS app's .NET code): skipped.
 *
 * The other records go through bind_zone_file.ts (kudurru's own zone file
 * parser) twice, once for the served records and once for the disabled
 * ones, so each RRset's endpoint says which it is: kudurru's `disabled` is
 * per endpoint, Technitium's per record.
 */
import { type Endpoint, MAX_ENDPOINTS } from "../api/v1alpha1/dnsrecordset.ts";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { checkDomainName, normalizeName, toFqdn } from "../dns/name.ts";
import { formatRdata } from "../zone/format.ts";
import { lexZoneFile, type ZoneEntry } from "../zone/zone_file_lex.ts";
import {
  parseTTL,
  parseZoneFile,
  qualify,
  ZoneFileLimitError,
  type ZoneFileRecord,
} from "../zone/zone_file_parse.ts";
import { zoneObjectBase } from "./bind_names.ts";
import { importZoneFile } from "./bind_zone_file.ts";
import { groupName, type ImportContext, namespaced } from "./import_context.ts";
import { uniqueGroup, type UpstreamSettings } from "./adguard_upstreams.ts";
import { API_VERSION } from "../api/v1alpha1/meta.ts";
import {
  forwarderServer,
  type FwdRecord,
  parseFwd,
} from "./technitium_forwarders.ts";

/** A record line's trailing comment as Technitium writes it. */
interface RecordComment {
  disabled: boolean;
  text?: string;
}

/** A private-type line (FWD or APP) read apart from the zone file parser. */
interface PrivateRecord {
  line: number;
  text: string;
  owner: string;
  type: "FWD" | "APP";
  data: string[];
  disabled: boolean;
}

const CLASSES = /^(IN|CH|HS|CS|CLASS\d+)$/i;
const MAX_COMMENT = 1024;

/** The `$ORIGIN` the export starts with, lowercase and absolute; undefined when none. */
export function exportOrigin(text: string): string | undefined {
  for (const entry of lexZoneFile(text.slice(0, 4096))) {
    const head = entry.tokens[0]?.text.toUpperCase();
    if (head === "$ORIGIN" && entry.tokens[1] !== undefined) {
      const name = normalizeName(toFqdn(entry.tokens[1].text));
      return checkDomainName(name, { requireTrailingDot: true }) === null
        ? name
        : undefined;
    }
    if (head !== "$TTL") return undefined;
  }
  return undefined;
}

/** The `;` comment of a line, outside quotes; undefined when none. */
function lineComment(line: string): string | undefined {
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "\\") i++;
    else if (c === '"') quoted = !quoted;
    else if (c === ";" && !quoted) return line.slice(i + 1).trim();
  }
  return undefined;
}

/** A comment as Technitium's writer gives it: JSON for disabled or JSON comments, else text. */
function readComment(raw: string | undefined): RecordComment | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (raw.startsWith("{")) {
    try {
      const json = JSON.parse(raw) as Record<string, unknown>;
      const text = typeof json.comments === "string" && json.comments !== ""
        ? json.comments
        : undefined;
      return { disabled: json.disabled === true, ...(text && { text }) };
    } catch {
      // Not JSON after all: a comment that starts with a brace.
    }
  }
  return { disabled: false, text: raw };
}

/** FWD and APP lines, with their absolute owners, found the way the parser walks the file. */
function privateRecords(
  text: string,
  zoneName: string,
  lines: string[],
): PrivateRecord[] {
  const out: PrivateRecord[] = [];
  let origin = zoneName;
  let previous: string | undefined;
  for (const entry of lexZoneFile(text)) {
    if (entry.error !== undefined || entry.tokens.length === 0) continue;
    const first = entry.tokens[0]!;
    if (!entry.blankOwner && first.text.startsWith("$")) {
      if (first.text.toUpperCase() === "$ORIGIN" && entry.tokens[1]) {
        origin = normalizeName(qualify(entry.tokens[1].text, origin));
      }
      continue;
    }
    const owner = entry.blankOwner
      ? previous
      : normalizeName(qualify(first.text, origin));
    previous = owner;
    const type = typeIndex(entry);
    if (type === undefined || owner === undefined) continue;
    const word = entry.tokens[type]!.text.toUpperCase();
    if (word !== "FWD" && word !== "APP") continue;
    out.push({
      line: entry.line,
      text: entry.text,
      owner,
      type: word,
      data: entry.tokens.slice(type + 1).map((t) => t.text),
      disabled: readComment(lineComment(lines[entry.line - 1] ?? ""))
        ?.disabled === true,
    });
  }
  return out;
}

/** Index of the type token: after the owner, a TTL and a class, in either order. */
function typeIndex(entry: ZoneEntry): number | undefined {
  let i = entry.blankOwner ? 0 : 1;
  for (let n = 0; n < 2 && i < entry.tokens.length; n++) {
    const t = entry.tokens[i]!.text;
    if (parseTTL(t) !== undefined || CLASSES.test(t)) i++;
    else break;
  }
  return i < entry.tokens.length ? i : undefined;
}

/** A record as one absolute line, so it reads alone whatever came before it. */
function recordLine(r: ZoneFileRecord): string {
  return `${r.owner} ${r.ttl ?? ""} IN ${r.type} ${formatRdata(r.rdata)}`;
}

/** What one export gave, for the caller's report. */
export interface ZoneExportOutcome {
  objects: KObject[];
}

/**
 * Maps the export `text` (`label` in the report) of zone `zoneName`.
 * Forwarders of `FWD` records become groups of `upstreams`.
 */
export function mapZoneExport(
  ctx: ImportContext,
  label: string,
  text: string,
  zoneName: string,
  upstreams: UpstreamSettings,
): ZoneExportOutcome {
  const what = `zone ${zoneName}`;
  const lines = text.split(/\r?\n/);
  let parse;
  try {
    parse = parseZoneFile(text, { origin: zoneName });
  } catch (error) {
    if (!(error instanceof ZoneFileLimitError)) throw error;
    ctx.skipped(label, what, error.message);
    return { objects: [] };
  }
  const privates = privateRecords(text, zoneName, lines);
  const privateLines = new Set(privates.map((p) => p.line));
  for (const s of parse.skipped) {
    if (!privateLines.has(s.line)) {
      ctx.skipped(`${label}:${s.line}`, s.text, s.reason);
    }
  }
  for (const p of privates.filter((p) => p.type === "APP")) {
    ctx.skipped(
      `${label}:${p.line}`,
      p.text,
      `APP record (DNS app ${
        p.data[0] ?? "?"
      }): its answers come from the app's .NET code, which kudurru cannot run; write the answers it gives as records`,
    );
  }
  const fwds = privates.filter((p) => p.type === "FWD");
  const apexFwd = fwds.filter((p) => p.owner === zoneName);
  if (apexFwd.length > 0) {
    return forwardZone(
      ctx,
      label,
      zoneName,
      apexFwd,
      fwds,
      parse.records,
      upstreams,
    );
  }
  for (const p of fwds) subtreeForwarder(ctx, label, p, upstreams);
  return primaryZone(ctx, label, zoneName, lines, parse.records);
}

/** Servers of FWD records by priority (lower first, as Technitium tries them), each reported. */
function fwdServers(
  ctx: ImportContext,
  label: string,
  records: PrivateRecord[],
): { servers: string[]; dnssec: boolean } {
  const read: { p: PrivateRecord; fwd: FwdRecord }[] = [];
  for (const p of records) {
    const where = `${label}:${p.line}`;
    if (p.disabled) {
      ctx.skipped(
        where,
        p.text,
        "a disabled FWD record: Technitium does not forward to it",
      );
      continue;
    }
    const fwd = parseFwd(p.data);
    if (fwd === undefined) {
      ctx.skipped(
        where,
        p.text,
        "not an FWD record's data (protocol forwarder dnssec proxyType … priority)",
      );
      continue;
    }
    read.push({ p, fwd });
  }
  read.sort((a, b) => a.fwd.priority - b.fwd.priority);
  const servers: string[] = [];
  let dnssec = false;
  for (const { p, fwd } of read) {
    const where = `${label}:${p.line}`;
    const result = forwarderServer(fwd.forwarder, fwd.protocol);
    if ("why" in result) {
      ctx.skipped(where, p.text, result.why);
      continue;
    }
    if (fwd.proxy !== undefined) {
      ctx.skipped(
        where,
        `proxy ${fwd.proxy} of ${p.text}`,
        "kudurru reaches upstreams directly: the forwarder is imported without its proxy",
      );
    }
    dnssec ||= fwd.dnssecValidation;
    if (!servers.includes(result.server)) servers.push(result.server);
  }
  return { servers, dnssec };
}

/** The group holding `servers`: one already made for the same list, or a new one. */
function groupFor(
  upstreams: UpstreamSettings,
  base: string,
  servers: string[],
): string {
  const key = servers.join(" ");
  for (const [name, group] of Object.entries(upstreams.groups)) {
    if (name !== "default" && group.servers.join(" ") === key) return name;
  }
  const name = uniqueGroup(upstreams.groups, groupName(base) ?? "forwarder");
  upstreams.groups[name] = { servers };
  return name;
}

function forwardZone(
  ctx: ImportContext,
  label: string,
  zoneName: string,
  apex: PrivateRecord[],
  all: PrivateRecord[],
  records: ZoneFileRecord[],
  upstreams: UpstreamSettings,
): ZoneExportOutcome {
  const what = `forwarder zone ${zoneName}`;
  const { servers, dnssec } = fwdServers(ctx, label, apex);
  for (const p of all.filter((p) => p.owner !== zoneName)) {
    subtreeForwarder(ctx, label, p, upstreams);
  }
  const others = records.filter((r) =>
    r.type !== "SOA" && !(r.type === "NS" && r.owner === zoneName)
  );
  if (others.length > 0) {
    ctx.skipped(
      label,
      `${others.length} record(s) of ${what}`,
      "a kudurru forward zone answers nothing itself: these records are not imported (put them in a primary zone to serve them)",
    );
  }
  if (servers.length === 0) {
    ctx.skipped(
      label,
      what,
      "none of its FWD records names a forwarder kudurru can use",
    );
    return { objects: [] };
  }
  const group = groupFor(upstreams, zoneName, servers);
  const name = ctx.uniqueName("DNSZone", zoneObjectBase(zoneName), "zone");
  ctx.mapped(
    label,
    what,
    `DNSZone ${name} (type forward) to upstream group ${group} (upstreams.groups.${group}: ${
      servers.join(", ")
    })`,
  );
  return {
    objects: [{
      apiVersion: API_VERSION,
      kind: "DNSZone",
      metadata: { name },
      spec: {
        zoneName,
        type: "forward",
        forward: { upstreamGroup: group, dnssecValidation: dnssec },
      },
    }],
  };
}

function subtreeForwarder(
  ctx: ImportContext,
  label: string,
  p: PrivateRecord,
  upstreams: UpstreamSettings,
): void {
  const { servers } = fwdServers(ctx, label, [p]);
  if (servers.length === 0) return;
  const group = groupFor(upstreams, p.owner, servers);
  upstreams.conditional[p.owner] = group;
  ctx.mapped(
    `${label}:${p.line}`,
    p.text,
    `upstreams.conditional["${p.owner}"]: ${group} (upstreams.groups.${group}: ${
      servers.join(", ")
    })`,
  );
}

function primaryZone(
  ctx: ImportContext,
  label: string,
  zoneName: string,
  lines: string[],
  records: ZoneFileRecord[],
): ZoneExportOutcome {
  const what = `zone ${zoneName}`;
  // Each record rewritten on its own line number, so notes point at the export.
  const served: string[] = lines.map(() => "");
  const disabled: string[] = lines.map(() => "");
  const comments = {
    served: new Map<string, string[]>(),
    disabled: new Map<string, string[]>(),
  };
  for (const r of records) {
    const comment = readComment(lineComment(lines[r.line - 1] ?? ""));
    const off = comment?.disabled === true;
    (off ? disabled : served)[r.line - 1] = recordLine(r);
    if (comment?.text !== undefined) {
      const map = off ? comments.disabled : comments.served;
      const key = `${r.owner} ${r.type}`;
      map.set(key, [...(map.get(key) ?? []), comment.text]);
    }
  }
  const original = (note: { where: string; what: string; detail: string }) => {
    const line = Number(note.where.slice(note.where.lastIndexOf(":") + 1));
    return { ...note, what: lines[line - 1]?.trim() ?? note.what };
  };
  const on = importZoneFile(served.join("\n"), zoneName, label);
  const off = importZoneFile(disabled.join("\n"), zoneName, label);
  for (const s of [...on.skipped, ...off.skipped].map(original)) {
    ctx.skipped(s.where, s.what, s.detail);
  }
  if (on.soa === undefined) {
    ctx.skipped(
      label,
      what,
      "no SOA at the zone's apex: not a zone export kudurru can serve",
    );
    return { objects: [] };
  }
  if (off.soa !== undefined || off.nameservers.length > 0) {
    ctx.skipped(
      label,
      `disabled apex SOA or NS of ${zoneName}`,
      "a DNSZone's SOA and nameservers cannot be disabled: left out",
    );
  }
  const extend = (
    endpoints: Endpoint[],
    map: Map<string, string[]>,
    isOff: boolean,
  ) =>
    endpoints.map((e): Endpoint => {
      const text = map.get(`${e.dnsName} ${e.recordType}`)?.join("; ").slice(
        0,
        MAX_COMMENT,
      );
      if (!isOff && text === undefined) return e;
      return {
        ...e,
        kudurru: {
          ...(isOff && { disabled: true }),
          ...(text !== undefined && { comment: text }),
        },
      };
    });
  const endpoints = [
    ...extend(on.rrsets.slice(), comments.served, false),
    ...extend(off.rrsets.slice(), comments.disabled, true),
  ];
  const zone = ctx.uniqueName("DNSZone", zoneObjectBase(zoneName), "zone");
  const objects: KObject[] = [{
    apiVersion: API_VERSION,
    kind: "DNSZone",
    metadata: { name: zone },
    spec: {
      zoneName,
      type: "primary",
      soa: on.soa,
      ...(on.nameservers.length > 0 && { nameservers: on.nameservers }),
      ...(on.soaTTL !== undefined && { defaultTTL: on.soaTTL }),
    },
  }];
  const sets: string[] = [];
  for (let at = 0; at < endpoints.length; at += MAX_ENDPOINTS) {
    const chunk = endpoints.slice(at, at + MAX_ENDPOINTS);
    const name = ctx.uniqueName(
      "DNSRecordSet",
      `${zone}-technitium`,
      "technitium",
    );
    sets.push(name);
    objects.push(
      namespaced("DNSRecordSet", name, {
        zoneRef: { name: zone },
        endpoints: chunk,
      }),
    );
  }
  const notes = on.notes.length > 0 ? `; ${on.notes.join("; ")}` : "";
  ctx.mapped(
    label,
    what,
    `DNSZone ${zone} (type primary; SOA and ${on.nameservers.length} apex NS from the export, the serial is kudurru's own) with ${on.records} records in ${on.rrsets.size} RRsets${
      off.rrsets.size > 0
        ? ` and ${off.records} disabled records in ${off.rrsets.size} RRsets (kudurru.disabled: true)`
        : ""
    }, DNSRecordSet ${
      sets.map((s) => `default/${s}`).join(", ") || "none"
    }${notes}`,
  );
  return { objects };
}
