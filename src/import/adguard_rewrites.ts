/**
 * AdGuard Home's DNS rewrites (`filtering.rewrites`, `dns.rewrites` before
 * schema 26) as local records. kudurru's Policy has no rewrites, so each
 * rewritten name gets a DNSRecordSet in a primary DNSZone: one zone per
 * rewritten name that no other rewritten name is above, holding the
 * records of every rewrite below it. An answer that is an address becomes
 * A or AAAA, a name becomes a CNAME, and `*.d` a wildcard record; the
 * answers "A" and "AAAA" (keep the upstream's records) have no
 * counterpart.
 */
import type { KObject } from "../api/v1alpha1/meta.ts";
import { API_VERSION } from "../api/v1alpha1/meta.ts";
import { isIpAddress } from "../dns/ip_text.ts";
import {
  hostName,
  type ImportContext,
  isMap,
  namespaced,
} from "./import_context.ts";

interface Rewrite {
  where: string;
  /** Owner name, FQDN, "*." kept for wildcards. */
  owner: string;
  /** The name without "*.", FQDN: what decides the zone. */
  base: string;
  type: "A" | "AAAA" | "CNAME";
  target: string;
  disabled: boolean;
}

/** Maps `rewrites` (the list at `where`) to zones and record sets. */
export function mapRewrites(
  ctx: ImportContext,
  value: unknown,
  where: string,
): KObject[] {
  ctx.handle(where);
  if (!Array.isArray(value)) return [];
  const rewrites: Rewrite[] = [];
  value.forEach((entry: unknown, i) => {
    const rewrite = parseRewrite(ctx, entry, `${where}[${i}]`);
    if (rewrite !== undefined) rewrites.push(rewrite);
  });
  // Zone apexes: the rewritten names with no other rewritten name above
  // them. An exact CNAME cannot be an apex (it may not share its name with
  // the zone's SOA and NS), so it makes no zone of its own.
  const apexes = [
    ...new Set(
      rewrites.filter((r) => !(r.type === "CNAME" && r.owner === r.base))
        .map((r) => r.base),
    ),
  ];
  const zoneOf = (name: string) =>
    apexes.filter((apex) => name === apex || name.endsWith(`.${apex}`))
      .sort((a, b) => a.length - b.length)[0];
  const roots = apexes.filter((apex) => zoneOf(apex) === apex);
  const zoneNames = new Map<string, string>();
  const objects: KObject[] = [];
  for (const root of roots) {
    const name = ctx.uniqueName("DNSZone", root, "adguard-rewrites");
    zoneNames.set(root, name);
    objects.push({
      apiVersion: API_VERSION,
      kind: "DNSZone",
      metadata: { name },
      spec: { zoneName: root, type: "primary" },
    });
  }
  // One record set per owner name.
  const byOwner = new Map<string, Rewrite[]>();
  for (const r of rewrites) {
    const zone = zoneOf(r.base);
    if (zone === undefined || (r.type === "CNAME" && r.owner === zone)) {
      ctx.skipped(
        r.where,
        `rewrite ${r.owner.slice(0, -1)} → ${r.target}`,
        "a CNAME for a name no other rewrite is above: it would be a zone apex, where a CNAME cannot be; add it as a record to a zone of yours",
      );
      continue;
    }
    const list = byOwner.get(r.owner) ?? [];
    list.push(r);
    byOwner.set(r.owner, list);
  }
  for (const [owner, list] of byOwner) {
    const zone = zoneOf(list[0]!.base)!;
    const usable = withoutCnameConflicts(ctx, list);
    const endpoints = (["A", "AAAA", "CNAME"] as const).flatMap((type) => {
      const of = usable.filter((r) => r.type === type);
      if (of.length === 0) return [];
      const on = of.filter((r) => !r.disabled);
      const group = (rs: Rewrite[], disabled: boolean) =>
        rs.length === 0 ? [] : [{
          dnsName: owner,
          recordType: type,
          targets: [...new Set(rs.map((r) => r.target))],
          ...(disabled && { kudurru: { disabled: true } }),
        }];
      return [
        ...group(on, false),
        ...group(of.filter((r) => r.disabled), true),
      ];
    });
    if (endpoints.length === 0) continue;
    const setName = ctx.uniqueName(
      "DNSRecordSet",
      owner.startsWith("*.") ? `wildcard.${owner.slice(2)}` : owner,
      "adguard-rewrite",
    );
    objects.push(namespaced("DNSRecordSet", setName, {
      zoneRef: { name: zoneNames.get(zone)! },
      endpoints,
    }));
    for (const r of usable) {
      ctx.mapped(
        r.where,
        `rewrite ${r.owner.slice(0, -1)} → ${r.target}`,
        `${r.type} record in DNSRecordSet ${setName} of DNSZone ${
          zoneNames.get(zone)
        } (${zone})${r.disabled ? ", disabled as it was" : ""}${
          r.owner === zone
            ? `; kudurru answers every name under ${zone} from this zone (NXDOMAIN where there is no record), where AdGuard Home forwarded them`
            : ""
        }${
          r.owner.startsWith("*.") && !byOwner.has(r.base)
            ? `; ${r.base} itself has no record here, where AdGuard Home forwarded it`
            : ""
        }`,
      );
    }
  }
  return objects;
}

/** A CNAME may not share its name with other records: those win. */
function withoutCnameConflicts(
  ctx: ImportContext,
  list: Rewrite[],
): Rewrite[] {
  const hasAddress = list.some((r) => r.type !== "CNAME");
  const cnames = list.filter((r) => r.type === "CNAME");
  const keep = list.filter((r) => r.type !== "CNAME");
  if (!hasAddress && cnames.length > 0) keep.push(cnames[0]!);
  for (const r of cnames) {
    if (keep.includes(r)) continue;
    ctx.skipped(
      r.where,
      `rewrite ${r.owner.slice(0, -1)} → ${r.target}`,
      "a CNAME cannot share its name with other records or CNAMEs (RFC 1034 §3.6.2)",
    );
  }
  return keep;
}

function parseRewrite(
  ctx: ImportContext,
  entry: unknown,
  where: string,
): Rewrite | undefined {
  if (
    !isMap(entry) || typeof entry.domain !== "string" ||
    typeof entry.answer !== "string"
  ) {
    ctx.skipped(where, "rewrite", "needs a domain and an answer");
    return undefined;
  }
  const answer = entry.answer.trim();
  const what = `rewrite ${entry.domain} → ${answer}`;
  const wildcard = entry.domain.startsWith("*.");
  const base = hostName(wildcard ? entry.domain.slice(2) : entry.domain);
  if (base === undefined) {
    ctx.skipped(where, what, `"${entry.domain}" is not a domain name`);
    return undefined;
  }
  const common = {
    where,
    owner: `${wildcard ? "*." : ""}${base}.`,
    base: `${base}.`,
    disabled: entry.enabled === false,
  };
  if (answer === "A" || answer === "AAAA") {
    ctx.skipped(
      where,
      what,
      `answer "${answer}" keeps the upstream's ${answer} records: kudurru has no per-type exception to a local name`,
    );
    return undefined;
  }
  if (isIpAddress(answer)) {
    return {
      ...common,
      type: answer.includes(":") ? "AAAA" : "A",
      target: answer,
    };
  }
  const target = hostName(answer);
  if (target === undefined) {
    ctx.skipped(where, what, `"${answer}" is neither an address nor a name`);
    return undefined;
  }
  return { ...common, type: "CNAME", target: `${target}.` };
}
