/**
 * `kudurru import dnsmasq PATH`: a dnsmasq configuration (a file, or a
 * directory such as /etc/dnsmasq.d, with its `conf-file=`/`conf-dir=`
 * includes) as kudurru objects and settings (src/import/import_result.ts).
 *
 * - `server=`, `local=`, `rev-server=` → `upstreams` through the shared
 *   parser (src/config/dnsmasq_servers.ts), one line at a time so a line it
 *   refuses is reported and the rest still import; `server=/d/` and
 *   `local=/d/` (never forwarded) → an empty primary zone for d;
 * - `address=` → records for d and `*.d`, or a block (dnsmasq_address.ts);
 * - `host-record=`, `cname=`, `srv-host=`… and `addn-hosts=` files →
 *   DNSRecordSets in primary zones (dnsmasq_records.ts, dnsmasq_zones.ts);
 * - `strict-order`/`all-servers` → the groups' strategy, `local-ttl=` → the
 *   zones' default TTL, `cache-size=` → `cache.maxEntries`;
 * - DHCP, TFTP and router-advertisement options → one summary line; every
 *   other option → skipped with its file and line.
 */
import { join } from "node:path";
import { validateObject } from "../api/v1alpha1/validate.ts";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { MAX_TTL } from "../api/v1alpha1/field_schemas.ts";
import {
  DnsmasqImportError,
  type DnsmasqServers,
  parseDnsmasqServers,
} from "../config/dnsmasq_servers.ts";
import { findSpecialZone } from "../dns/special_use_zones.ts";
import {
  ImportError,
  type ImportNote,
  type ImportResult,
  type ReadFile,
} from "./import_result.ts";
import {
  isDirectory,
  type OptionLine,
  readConfig,
  relativeTo,
} from "./dnsmasq_lines.ts";
import {
  hostsLine,
  isRecordOption,
  type NameContext,
  type RecordEntry,
  recordsOf,
} from "./dnsmasq_records.ts";
import { ZoneBuilder } from "./dnsmasq_zones.ts";
import {
  addressLine,
  BLOCK_LIST_NAMES,
  BLOCK_POLICY_NAME,
  blockObjects,
  EVERYONE_GROUP,
} from "./dnsmasq_address.ts";

const FORWARDING = new Set(["server", "local", "rev-server"]);

/** DHCP, TFTP and IPv6 router advertisement: no counterpart in a DNS server. */
function isDhcpOption(option: string): boolean {
  return /^(dhcp-|tftp-|pxe-|bootp-|ra-)/.test(option) ||
    ["enable-ra", "enable-tftp", "leasefile-ro", "read-ethers", "no-ping"]
      .includes(option);
}

/** Reasons for options users often have, besides the generic one. */
const SKIP_REASONS: Record<string, string> = {
  "interface": "listener setting: set listeners.dns in kudurru.yaml",
  "except-interface": "listener setting: set listeners.dns in kudurru.yaml",
  "listen-address": "listener setting: set listeners.dns in kudurru.yaml",
  "bind-interfaces": "listener setting: set listeners.dns in kudurru.yaml",
  "bind-dynamic": "listener setting: set listeners.dns in kudurru.yaml",
  "port": "listener setting: set listeners.dns in kudurru.yaml",
  "domain-needed":
    "no switch in kudurru: names without a dot go to the default group",
  "bogus-priv":
    "kudurru answers the private reverse zones itself (RFC 6303) without a switch",
  "ipset": "no counterpart: kudurru does not fill firewall sets",
  "nftset": "no counterpart: kudurru does not fill firewall sets",
  "dnssec": "DNSSEC validation is not an import setting",
  "conf-script": "runs a program; the import reads files only",
  "servers-file": "not followed; import that file itself",
};

/** Reads a dnsmasq configuration at `path` (file or directory). */
export async function importDnsmasq(
  path: string,
  readFile: ReadFile = Deno.readFile,
): Promise<ImportResult> {
  const config = await readConfig(path, readFile);
  if (config.files.length === 0) {
    const why = config.problems[0]?.detail ?? "holds no configuration file";
    throw new ImportError(`Cannot import dnsmasq "${path}": ${why}`);
  }
  const mapped: ImportNote[] = [];
  const skipped: ImportNote[] = config.problems.map((p) => ({ ...p }));
  const lines = config.lines;
  refuseForeign(path, lines);

  const at = (l: OptionLine) => `${l.file}:${l.line}`;
  const whatOf = (l: OptionLine) =>
    l.raw === "" ? l.option : `${l.option}=${l.raw}`;
  const skip = (l: OptionLine, detail: string) =>
    skipped.push({ where: at(l), what: whatOf(l), detail });
  const map = (l: OptionLine, detail: string) =>
    mapped.push({ where: at(l), what: whatOf(l), detail });

  // Settings other lines depend on, wherever they stand.
  const ctx: NameContext = {};
  const flags = new Map<string, OptionLine>();
  let localTTL: number | undefined;
  for (const l of lines) {
    if (l.option === "domain" && l.fields.length === 1 && !ctx.domain) {
      const d = l.fields[0]!.toLowerCase().replace(/\.$/, "");
      if (d !== "" && d !== "#") ctx.domain = d;
    } else if (l.option === "mx-target" && l.fields[0]) {
      ctx.mxTarget = l.fields[0];
    } else if (
      ["no-resolv", "strict-order", "all-servers", "expand-hosts"].includes(
        l.option,
      )
    ) {
      flags.set(l.option, l);
    }
  }

  const zones = new ZoneBuilder();
  const blocked: Record<"zeroIP" | "nxdomain", string[]> = {
    zeroIP: [],
    nxdomain: [],
  };
  /** Lines whose report detail needs the built objects. */
  const recordLines: { line: OptionLine; entries: RecordEntry[] }[] = [];
  const forwardLines: { line: OptionLine; text: string; note: string }[] = [];
  const dhcp: OptionLine[] = [];
  const settings: Record<string, unknown> = {};

  const addRecords = (l: OptionLine, entries: RecordEntry[]): boolean => {
    const conflict = zones.add(entries);
    if (conflict !== undefined) {
      skip(l, conflict);
      return false;
    }
    recordLines.push({ line: l, entries });
    return true;
  };

  for (const l of lines) {
    if (FORWARDING.has(l.option)) {
      const line = forwardingLine(l);
      const problem = checkForwarding(line.text, at(l));
      if (problem !== undefined) skip(l, problem);
      else forwardLines.push({ line: l, ...line });
    } else if (l.option === "address") {
      const parsed = addressLine(l.raw);
      if (parsed.kind === "invalid") skip(l, parsed.reason);
      else if (parsed.kind === "block") {
        blocked[parsed.response].push(...parsed.domains);
        map(
          l,
          `blocked (${
            parsed.response === "nxdomain" ? "NXDOMAIN" : "0.0.0.0 and ::"
          }) with every name below: BlockList ${IMPORT_NS}/${
            BLOCK_LIST_NAMES[parsed.response]
          }, applied by Policy ${IMPORT_NS}/${BLOCK_POLICY_NAME}`,
        );
      } else {
        const entries = parsed.domains.flatMap((d) => [
          { name: d, type: parsed.type, target: parsed.address },
          { name: `*.${d}`, type: parsed.type, target: parsed.address },
        ]);
        if (addRecords(l, entries)) {
          for (const d of parsed.domains) zones.declare(d, at(l));
        }
      }
    } else if (isRecordOption(l.option)) {
      const entries = recordsOf(l.option, l.fields, ctx);
      if (typeof entries === "string") skip(l, entries);
      else addRecords(l, entries);
    } else if (l.option === "addn-hosts" || l.option === "hostsdir") {
      await importHosts(l, ctx, readFile, {
        skip,
        map,
        skipAt: (where, what, detail) => skipped.push({ where, what, detail }),
        add: (entries) => zones.add(entries),
      });
    } else if (isDhcpOption(l.option)) {
      dhcp.push(l);
    } else if (l.option === "domain") {
      if (l.fields.length === 1 && l.fields[0] !== "#" && l.fields[0] !== "") {
        map(
          l,
          `local domain ${ctx.domain}: names without a dot take it, and records in it go in zone ${ctx.domain}.`,
        );
      } else {
        skip(
          l,
          l.fields[0] === "#"
            ? "the domain from resolv.conf's search line is not known here"
            : "a domain for a DHCP range or interface: DHCP is not imported",
        );
      }
    } else if (l.option === "mx-target") {
      map(l, "the target of mx-host= lines that name no host");
    } else if (l.option === "expand-hosts") {
      map(
        l,
        ctx.domain
          ? `names without a dot in hosts files become name.${ctx.domain}`
          : "no domain= to add: hosts-file names without a dot are skipped",
      );
    } else if (l.option === "local-ttl") {
      const ttl = Number(l.fields[0]);
      if (!/^\d+$/.test(l.fields[0] ?? "") || ttl > MAX_TTL) {
        skip(l, `"${l.raw}" is not a TTL from 0 to ${MAX_TTL}`);
      } else {
        localTTL = ttl;
        map(l, `defaultTTL ${ttl} of the imported zones`);
      }
    } else if (l.option === "cache-size") {
      const size = Number(l.fields[0]);
      if (!/^\d+$/.test(l.fields[0] ?? "")) {
        skip(l, `"${l.raw}" is not a number`);
      } else {
        settings.cache = { maxEntries: size };
        map(
          l,
          "cache.maxEntries (dnsmasq counts names, kudurru answers: approximate)",
        );
      }
    } else if (flags.get(l.option) === l) {
      continue; // reported with the upstream settings below
    } else {
      skip(l, SKIP_REASONS[l.option] ?? "no counterpart in kudurru");
    }
  }

  // Upstreams: all accepted forwarding lines at once, so domains with the
  // same servers share a group as the shared parser names them.
  const servers = parseDnsmasqServers(
    forwardLines.map((f) => f.text).join("\n"),
    path,
  );
  const localOnly: string[] = [];
  const special: string[] = [];
  for (const fqdn of servers.localOnly) {
    const d = fqdn.replace(/\.$/, "");
    if (findSpecialZone(fqdn) === fqdn) special.push(fqdn);
    else {
      localOnly.push(d);
      zones.declare(d, "local-only");
    }
  }
  if (ctx.domain !== undefined) {
    if (zones.hasOwnerUnder(ctx.domain)) zones.declare(ctx.domain, "domain=");
  }
  const upstreams = upstreamSettings(servers, flags, mapped, skipped, at);
  if (upstreams !== undefined) settings.upstreams = upstreams;

  const built = zones.build(localTTL);
  const zoneOf = zones.zoneOf();
  const zoneLabel = (apex: string) =>
    `DNSZone ${built.zoneNames.get(apex)} (${apex}.)`;
  for (const f of forwardLines) {
    map(f.line, forwardDetail(f.text, servers, zoneLabel) + f.note);
  }
  for (const { line, entries } of recordLines) {
    const byZone = new Map<string, string[]>();
    for (const e of entries) {
      const apex = zoneOf.get(e.name)!;
      const list = byZone.get(apex) ?? [];
      if (!list.includes(`${e.type} ${e.name}`)) {
        list.push(`${e.type} ${e.name}`);
      }
      byZone.set(apex, list);
    }
    map(
      line,
      [...byZone].map(([apex, recs]) =>
        `${recs.join(", ")} in DNSRecordSet ${IMPORT_NS}/${
          built.zoneNames.get(apex)
        } of ${zoneLabel(apex)}`
      ).join("; "),
    );
  }
  if (recordLines.some((r) => r.line.option === "host-record")) {
    skipped.push({
      where: path,
      what: "host-record PTR records",
      detail:
        "dnsmasq adds a PTR for each host-record's first address; add reverse zones with ptr-record= or by hand",
    });
  }
  if (dhcp.length > 0) {
    skipped.push({
      where: at(dhcp[0]!),
      what:
        `${dhcp.length} DHCP, TFTP and router-advertisement option line(s) (${
          [...new Set(dhcp.map((l) => l.option))].slice(0, 8).join(", ")
        }${new Set(dhcp.map((l) => l.option)).size > 8 ? ", …" : ""})`,
      detail: "kudurru is a DNS server only: DHCP is not imported",
    });
  }
  if (special.length > 0) {
    mapped.push({
      where: path,
      what: special.join(", "),
      detail:
        "special-use zones (RFC 6761, RFC 7686, RFC 6303): kudurru answers them itself, never forwarding them",
    });
  }

  const objects = validObjects(
    [...built.objects, ...blockObjects(blocked)],
    skipped,
    path,
  );
  if (blocked.zeroIP.length + blocked.nxdomain.length > 0) {
    mapped.push({
      where: path,
      what: `Policy ${IMPORT_NS}/${BLOCK_POLICY_NAME}`,
      detail:
        `applies the address= block lists to ClientGroup ${IMPORT_NS}/${EVERYONE_GROUP} (everyone, created at first boot) alongside Policy ${IMPORT_NS}/default; clients of a more specific ClientGroup are not in "default" (docs/blocking.md): add the lists to their policies`,
    });
  }
  if (lines.length === 0) {
    skipped.push({
      where: path,
      what: `${config.files.length} file(s), no option lines`,
      detail: "every line is a comment or blank: nothing to import",
    });
  }
  return { objects, settings, report: { mapped, skipped } };
}

const IMPORT_NS = "default";

/**
 * A server/local line as the shared parser takes it: an `@interface` or
 * `@source` binding after the address is dropped (kudurru chooses its own
 * source address), and the note says so.
 */
function forwardingLine(l: OptionLine): { text: string; note: string } {
  let value = l.raw;
  let note = "";
  const cut = l.option === "rev-server"
    ? value.indexOf(",")
    : value.lastIndexOf("/");
  const head = value.slice(0, cut + 1);
  const tail = value.slice(cut + 1);
  const atSign = tail.indexOf("@");
  if (atSign > 0) {
    value = head + tail.slice(0, atSign);
    note = `; binding ${tail.slice(atSign)} dropped`;
  }
  return { text: `${l.option}=${value}`, note };
}

/** Why the shared parser refuses a forwarding line, or undefined. */
function checkForwarding(text: string, where: string): string | undefined {
  try {
    parseDnsmasqServers(text, where);
    return undefined;
  } catch (err) {
    if (!(err instanceof DnsmasqImportError)) throw err;
    return err.message.replace(/^.*?: line \d+: /, "");
  }
}

/** What one accepted forwarding line became, in the merged result. */
function forwardDetail(
  text: string,
  all: DnsmasqServers,
  zoneLabel: (apex: string) => string,
): string {
  const one = parseDnsmasqServers(text);
  const parts: string[] = [];
  for (const s of one.groups.default?.servers ?? []) {
    parts.push(`upstreams.groups.default server ${s}`);
  }
  for (const d of Object.keys(one.conditional)) {
    parts.push(`upstreams.conditional ${d} → group ${all.conditional[d]}`);
  }
  for (const fqdn of one.localOnly) {
    parts.push(
      findSpecialZone(fqdn) === fqdn
        ? `${fqdn} is a special-use zone kudurru answers itself`
        : `never forwarded: ${zoneLabel(fqdn.replace(/\.$/, ""))}, primary`,
    );
  }
  return parts.join("; ");
}

/** `upstreams` from the parsed servers and the strategy flags, with notes. */
function upstreamSettings(
  servers: DnsmasqServers,
  flags: Map<string, OptionLine>,
  mapped: ImportNote[],
  skipped: ImportNote[],
  at: (l: OptionLine) => string,
): Record<string, unknown> | undefined {
  const groups = servers.groups as Record<
    string,
    { servers: string[]; strategy?: string }
  >;
  const names = Object.keys(groups);
  const strict = flags.get("strict-order");
  const all = flags.get("all-servers");
  const strategyLine = strict ?? all;
  if (strategyLine !== undefined) {
    const strategy = strict ? "strict" : "parallel_best";
    const what = strategyLine.option;
    if (names.length === 0) {
      skipped.push({
        where: at(strategyLine),
        what,
        detail: "no upstream group to give a strategy to",
      });
    } else {
      for (const n of names) groups[n]!.strategy = strategy;
      mapped.push({
        where: at(strategyLine),
        what,
        detail: `strategy ${strategy} of upstream group(s) ${names.join(", ")}`,
      });
    }
    if (strict && all) {
      skipped.push({
        where: at(all),
        what: "all-servers",
        detail: "strict-order was given too; the groups are strict",
      });
    }
  }
  const noResolv = flags.get("no-resolv");
  if (noResolv !== undefined) {
    mapped.push({
      where: at(noResolv),
      what: "no-resolv",
      detail:
        "upstreams come from server= lines only, as kudurru's come from upstreams.groups",
    });
  } else if (names.length > 0 || Object.keys(servers.conditional).length > 0) {
    skipped.push({
      where: "resolv.conf",
      what: "servers in /etc/resolv.conf",
      detail:
        "without no-resolv dnsmasq also forwards to resolv.conf's servers; add them to upstreams.groups.default",
    });
  }
  if (names.length === 0 && Object.keys(servers.conditional).length === 0) {
    return undefined;
  }
  return { groups, conditional: servers.conditional };
}

interface HostsSink {
  skip: (l: OptionLine, detail: string) => void;
  map: (l: OptionLine, detail: string) => void;
  skipAt: (where: string, what: string, detail: string) => void;
  add: (entries: RecordEntry[]) => string | undefined;
}

/** `addn-hosts=`/`hostsdir=`: the hosts file(s) as records, if readable here. */
async function importHosts(
  l: OptionLine,
  ctx: NameContext,
  readFile: ReadFile,
  sink: HostsSink,
): Promise<void> {
  const target = relativeTo(l.file, l.fields[0] ?? "");
  let files = [target];
  if (await isDirectory(target)) {
    files = [];
    for await (const e of Deno.readDir(target)) {
      if (e.isFile && !e.name.startsWith(".")) files.push(join(target, e.name));
    }
    files.sort();
  }
  let records = 0;
  let read = 0;
  for (const file of files) {
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(
        await readFile(file),
      );
    } catch (err) {
      sink.skip(
        l,
        `${file} cannot be read here (${
          (err as Error).message
        }): import its records by giving the file to this import, or add them by hand`,
      );
      continue;
    }
    read++;
    text.split(/\r?\n/).forEach((line, index) => {
      const entries = hostsLine(line, ctx);
      const where = `${file}:${index + 1}`;
      if (typeof entries === "string") {
        sink.skipAt(where, line.trim(), entries);
        return;
      }
      if (entries.length === 0) return;
      const conflict = sink.add(entries);
      if (conflict !== undefined) sink.skipAt(where, line.trim(), conflict);
      else records += entries.length;
    });
  }
  if (read > 0) {
    sink.map(l, `${records} A/AAAA record(s) from ${read} hosts file(s)`);
  }
}

/** Lines that cannot be dnsmasq: no line starts with an option name. */
function refuseForeign(path: string, lines: OptionLine[]): void {
  if (lines.length === 0) return;
  if (lines.some((l) => /^[a-z][a-z0-9-]*$/.test(l.option))) return;
  const first = lines[0]!;
  throw new ImportError(
    `"${path}" is not a dnsmasq configuration: no line is "option[=value]" (${first.file}:${first.line} reads "${
      first.option.slice(0, 60)
    }")`,
  );
}

/** The objects that pass validateObject; the others are reported. */
function validObjects(
  objects: KObject[],
  skipped: ImportNote[],
  path: string,
): KObject[] {
  return objects.filter((o) => {
    const result = validateObject(o);
    if (result.ok) return true;
    skipped.push({
      where: path,
      what: `${o.kind} ${o.metadata.name}`,
      detail: `invalid: ${
        result.issues.map((i) => `${i.path}: ${i.message}`).join("; ")
      }`,
    });
    return false;
  });
}
