/**
 * Pi-hole's gravity groups as kudurru objects (docs/blocking.md). Each
 * group becomes a ClientGroup and a Policy naming the lists linked to the
 * group; group 0 "Default" becomes `ClientGroup/default` (everyone, plus
 * the clients Pi-hole lists in it) and `Policy/default`, replacing the
 * first-boot objects of those names. A client in other groups only leaves
 * the catch-all: kudurru's longest address match does what Pi-hole's
 * client table does. `adlist` rows become one BlockList each (type 0
 * block, 1 allow); `domainlist` rows become inline sources (exact names as
 * `domains`, regular expressions as `regex`) on one BlockList per mode and
 * set of groups. Meanings are those of Pi-hole's "Domain Database" and
 * "Group Management" documentation.
 */
import type { KObject } from "../api/v1alpha1/meta.ts";
import { isCidr, isIpAddress } from "../dns/ip_text.ts";
import { type ImportContext, namespaced } from "./import_context.ts";
import type { GravityDomain, GravityTables } from "./pihole_gravity.ts";

/** Largest inline source a BlockList takes (blocklist.ts). */
const MAX_INLINE = 1_000_000;

/** FTL's regex extensions, which change what a rule matches or answers. */
const REGEX_EXTENSION = /;\s*(querytype|reply|invert)\b/i;

const MAC_RE = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i;
const HOSTNAME_RE =
  /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/i;

/** Per group id: the lists its Policy names. */
interface Refs {
  block: string[];
  allow: string[];
}

export function mapGravity(
  ctx: ImportContext,
  tables: GravityTables,
): KObject[] {
  const at = (table: string, id: number) => `${tables.where} ${table} ${id}`;
  const groups = new Map(tables.groups.map((g) => [g.id, g]));
  const refs = new Map<number, Refs>(
    tables.groups.map((g) => [g.id, { block: [], allow: [] }]),
  );
  // Reserve the default names before any list or group takes them.
  ctx.uniqueName("ClientGroup", "default", "default");
  ctx.uniqueName("Policy", "default", "default");
  /** The group ids an item is linked to that exist, or a skipped note. */
  const linked = (
    links: Map<number, number[]>,
    id: number,
    where: string,
    what: string,
  ): number[] | undefined => {
    const ids = (links.get(id) ?? []).filter((g) => groups.has(g));
    if (ids.length === 0) {
      ctx.skipped(
        where,
        what,
        "in no group: Pi-hole applies it to no client",
      );
      return undefined;
    }
    return ids.sort((a, b) => a - b);
  };
  const objects: KObject[] = [];

  for (const list of tables.adlists) {
    const where = at("adlist", list.id);
    const mode = list.type === 1 ? "allow" : list.type === 0 ? "block" : "";
    const what = `${mode === "allow" ? "allowlist" : "adlist"} ${list.address}`;
    if (mode === "") {
      ctx.skipped(where, what, `unknown adlist type ${list.type}`);
      continue;
    }
    if (!/^https?:\/\//i.test(list.address)) {
      ctx.skipped(
        where,
        what,
        "not an http(s) URL (a local file): kudurru reads lists from http(s) URLs or inline text; serve the file or paste it as an inline source",
      );
      continue;
    }
    const ids = linked(tables.adlistGroups, list.id, where, what);
    if (ids === undefined) continue;
    const label = list.comment ?? list.address;
    const name = ctx.uniqueName(
      "BlockList",
      `pihole-${list.comment ?? hostOf(list.address)}`,
      `pihole-${mode}`,
    );
    objects.push(namespaced("BlockList", name, {
      mode,
      sources: [{
        url: list.address,
        ...(label !== list.address && { name: label.slice(0, 253) }),
        ...(!list.enabled && { enabled: false }),
      }],
    }));
    for (const g of ids) refs.get(g)![mode].push(name);
    ctx.mapped(
      where,
      what,
      `BlockList ${name} (mode ${mode}${
        list.enabled ? "" : ", source disabled as it was"
      }) for group ${groupNames(groups, ids)}`,
    );
  }

  // Domain rules: one BlockList per mode and set of groups.
  const buckets = new Map<
    string,
    { mode: "block" | "allow"; ids: number[]; rules: GravityDomain[] }
  >();
  for (const d of tables.domains) {
    const where = at("domainlist", d.id);
    const kind = DOMAIN_TYPES[d.type];
    const what = `${kind?.label ?? `domain type ${d.type}`} ${d.domain}`;
    if (kind === undefined) {
      ctx.skipped(where, what, "unknown domainlist type (0 to 3 are known)");
      continue;
    }
    if (kind.regex && REGEX_EXTENSION.test(d.domain)) {
      ctx.skipped(
        where,
        what,
        "an FTL regex extension (;querytype=, ;reply=, ;invert): kudurru's rules match names for every query type and answer with the list's mode, so the rule would block more than it did",
      );
      continue;
    }
    if (/[\r\n]/.test(d.domain) || d.domain === "") {
      ctx.skipped(where, what, "not one rule (empty or several lines)");
      continue;
    }
    const ids = linked(tables.domainGroups, d.id, where, what);
    if (ids === undefined) continue;
    const key = `${kind.mode} ${ids.join(",")}`;
    const bucket = buckets.get(key) ?? { mode: kind.mode, ids, rules: [] };
    bucket.rules.push(d);
    buckets.set(key, bucket);
  }
  for (const bucket of buckets.values()) {
    const forGroups = bucket.ids.length === 1 && bucket.ids[0] === 0
      ? ""
      : `-${bucket.ids.map((g) => groups.get(g)!.name).join("-")}`;
    const base = `pihole-${bucket.mode === "allow" ? "allow" : "deny"}`;
    const name = ctx.uniqueName("BlockList", `${base}${forGroups}`, base);
    const sources: Record<string, unknown>[] = [];
    for (const regex of [false, true]) {
      for (const enabled of [true, false]) {
        const rules = bucket.rules.filter((d) =>
          DOMAIN_TYPES[d.type]!.regex === regex && d.enabled === enabled
        );
        if (rules.length === 0) continue;
        const inline = rules.map((d) => d.domain).join("\n") + "\n";
        const label = `Pi-hole ${regex ? "regex" : "exact"} ${
          bucket.mode === "allow" ? "allow" : "deny"
        } list${enabled ? "" : " (disabled entries)"}`;
        if (inline.length > MAX_INLINE) {
          for (const d of rules) {
            ctx.skipped(
              at("domainlist", d.id),
              d.domain,
              `${label}: more than ${MAX_INLINE} characters, the most an inline source holds; serve the rules over http`,
            );
          }
          continue;
        }
        sources.push({
          inline,
          format: regex ? "regex" : "domains",
          name: label,
          ...(!enabled && { enabled: false }),
        });
        for (const d of rules) {
          ctx.mapped(
            at("domainlist", d.id),
            `${DOMAIN_TYPES[d.type]!.label} ${d.domain}`,
            `BlockList ${name} (mode ${bucket.mode}, inline ${
              regex ? "regex" : "exact"
            } source${enabled ? "" : ", disabled as it was"}) for group ${
              groupNames(groups, bucket.ids)
            }`,
          );
        }
      }
    }
    if (sources.length === 0) continue;
    objects.push(namespaced("BlockList", name, { mode: bucket.mode, sources }));
    for (const g of bucket.ids) refs.get(g)![bucket.mode].push(name);
  }

  objects.push(...mapGroups(ctx, tables, refs, at));
  return objects;
}

/** domainlist.type as Pi-hole's "Domain Database" page defines it. */
const DOMAIN_TYPES: Record<
  number,
  { mode: "block" | "allow"; regex: boolean; label: string } | undefined
> = {
  0: { mode: "allow", regex: false, label: "exact allow" },
  1: { mode: "block", regex: false, label: "exact deny" },
  2: { mode: "allow", regex: true, label: "regex allow" },
  3: { mode: "block", regex: true, label: "regex deny" },
};

function mapGroups(
  ctx: ImportContext,
  tables: GravityTables,
  refs: Map<number, Refs>,
  at: (table: string, id: number) => string,
): KObject[] {
  // Names first, so a client's note can name its groups.
  const names = new Map<number, { group: string; policy: string }>();
  for (const group of tables.groups) {
    names.set(
      group.id,
      group.id === 0 ? { group: "default", policy: "default" } : {
        group: ctx.uniqueName(
          "ClientGroup",
          group.name,
          `pihole-group-${group.id}`,
        ),
        policy: ctx.uniqueName(
          "Policy",
          group.name,
          `pihole-group-${group.id}`,
        ),
      },
    );
  }
  const members = new Map<number, Record<string, unknown>[]>();
  for (const client of tables.clients) {
    const where = at("client", client.id);
    const what = `client ${client.ip}`;
    const entry = clientEntry(client.ip);
    if (typeof entry === "string") {
      ctx.skipped(where, what, entry);
      continue;
    }
    const ids = (tables.clientGroups.get(client.id) ?? []).filter((g) =>
      refs.has(g)
    );
    if (ids.length === 0) {
      ctx.skipped(
        where,
        what,
        "in no group: Pi-hole applies no list to it; kudurru puts it in the default group (everyone)",
      );
      continue;
    }
    const full = {
      ...entry,
      ...(client.comment !== undefined &&
        { comment: client.comment.slice(0, 1024) }),
    };
    for (const g of ids) {
      const list = members.get(g) ?? [];
      list.push(full);
      members.set(g, list);
    }
    ctx.mapped(
      where,
      what,
      `ClientGroup ${ids.map((g) => names.get(g)!.group).join(", ")}`,
    );
  }
  const objects: KObject[] = [];
  for (const group of tables.groups) {
    const where = at("group", group.id);
    const own = refs.get(group.id)!;
    const isDefault = group.id === 0;
    const { group: name, policy } = names.get(group.id)!;
    const clients = [
      ...(isDefault ? [{ cidr: "0.0.0.0/0" }, { cidr: "::/0" }] : []),
      ...(members.get(group.id) ?? []),
    ];
    if (!isDefault && clients.length === 0) {
      ctx.skipped(
        where,
        `group "${group.name}"`,
        "no client is in it, so its lists apply to no one (as in Pi-hole); nothing imported",
      );
      continue;
    }
    objects.push(namespaced("ClientGroup", name, { clients }));
    objects.push(namespaced("Policy", policy, {
      clientGroupRefs: [name],
      ...(group.enabled && own.block.length > 0 &&
        { blockListRefs: own.block }),
      ...(group.enabled && own.allow.length > 0 &&
        { allowListRefs: own.allow }),
    }));
    ctx.mapped(
      where,
      `group "${group.name}"${group.enabled ? "" : " (disabled)"}`,
      `ClientGroup ${name} and Policy ${policy}${
        isDefault
          ? " (everyone not in another group; replaces the first-boot default group and policy, whose starter list it does not name)"
          : ""
      }${
        group.enabled
          ? ""
          : ": the group is disabled, so the Policy names none of its lists; its clients get no blocking, as in Pi-hole"
      }`,
    );
  }
  return objects;
}

/** A `client.ip` value as a ClientGroup entry, or why not. */
export function clientEntry(
  text: string,
): Record<string, string> | string {
  if (isIpAddress(text)) return { ip: text };
  if (isCidr(text)) return { cidr: text };
  if (MAC_RE.test(text)) return { mac: text.toLowerCase() };
  if (text.startsWith(":")) {
    return "an interface client: kudurru matches clients by address, MAC or name, not by the interface a query came in on";
  }
  if (HOSTNAME_RE.test(text)) {
    return { hostname: text.toLowerCase().replace(/\.$/, "") };
  }
  return "not an IP address, CIDR, MAC address, interface or host name";
}

function groupNames(
  groups: Map<number, { name: string }>,
  ids: number[],
): string {
  return ids.map((g) => `"${groups.get(g)?.name ?? g}"`).join(", ");
}

function hostOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}${u.pathname}`;
  } catch {
    return url;
  }
}
