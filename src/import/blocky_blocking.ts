/**
 * blocky's `blocking` section → BlockLists, ClientGroups and Policies
 * (docs/blocking.md) and the `blocking` settings; also the ClientGroup and
 * Policy of every client that only has an upstream group. blocky's list
 * groups become one BlockList per group and mode; a client key of
 * `clientGroupsBlock` (and of `upstreams.groups`) becomes a ClientGroup and
 * its Policy. blocky schedules a list group (`listSchedules`), kudurru a
 * Policy: a client's scheduled list groups go into one extra Policy per
 * schedule, active only then.
 */
import type { Schedule } from "../api/v1alpha1/policy.ts";
import { isIpAddress } from "../dns/ip_text.ts";
import {
  asList,
  blockyDurationMs,
  type BlockyImport,
  clientEntry,
  globMatches,
  isMap,
  kudurruDuration,
  show,
  type YamlMap,
} from "./blocky_context.ts";

interface ListGroup {
  deny?: string;
  allow?: string;
}

const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

/** Reads `blocking` (and the clients of `upstreams.groups`, already read). */
export function importBlocking(imp: BlockyImport, doc: YamlMap): void {
  const section = isMap(doc.blocking) ? doc.blocking : {};
  const lists = new Map<string, ListGroup>();
  const modes = [
    ["denylists", "block"],
    ["blackLists", "block"],
    ["allowlists", "allow"],
    ["whiteLists", "allow"],
  ] as const;
  for (const [key, mode] of modes) {
    if (!isMap(section[key])) continue;
    for (const [group, sources] of Object.entries(section[key])) {
      const name = importList(
        imp,
        `blocking.${key}.${group}`,
        group,
        mode,
        sources,
      );
      if (name === undefined) continue;
      const entry = lists.get(group) ?? {};
      entry[mode === "block" ? "deny" : "allow"] = name;
      lists.set(group, entry);
    }
  }
  const schedules = importSchedules(imp, section);
  const listSchedules = new Map<string, string[]>();
  if (isMap(section.listSchedules)) {
    for (const [group, names] of Object.entries(section.listSchedules)) {
      const known: string[] = [];
      for (const name of asList(names).map(String)) {
        const where = `blocking.listSchedules.${group}`;
        if (schedules.has(name)) known.push(name);
        else imp.skipped(where, name, `no schedule "${name}" is defined`);
      }
      if (known.length > 0) listSchedules.set(group, known);
    }
  }
  const clientKeys = new Map<string, string[]>();
  if (isMap(section.clientGroupsBlock)) {
    for (const [key, groups] of Object.entries(section.clientGroupsBlock)) {
      clientKeys.set(key, asList(groups).map(String));
    }
  }
  for (const key of imp.clientUpstreams.keys()) {
    if (!clientKeys.has(key)) clientKeys.set(key, []);
  }
  for (const [key, groups] of clientKeys) {
    importClient(imp, key, groups, lists, schedules, listSchedules);
  }
  importBlockingSettings(imp, section);
}

/** One list group of one mode → a BlockList; its name, or undefined when no source is left. */
function importList(
  imp: BlockyImport,
  where: string,
  group: string,
  mode: "block" | "allow",
  value: unknown,
): string | undefined {
  const sources: Record<string, unknown>[] = [];
  asList(value).forEach((entry, i) => {
    const at = `${where}[${i}]`;
    if (typeof entry !== "string" || entry.trim() === "") {
      imp.skipped(at, show(entry), "not a list source");
      return;
    }
    const text = entry.trim();
    // blocky reads any source with a line break as inline rules.
    if (entry.includes("\n")) {
      sources.push({ inline: entry });
      imp.mapped(at, show(text), "inline source (format auto)");
    } else if (/^https?:\/\/[^/\s]/i.test(text)) {
      sources.push({ url: text });
      imp.mapped(at, text, "URL source");
    } else {
      imp.skipped(
        at,
        text,
        "a local file: a BlockList reads URLs and inline text; paste the file's rules into an inline source or serve it over HTTP",
      );
    }
  });
  if (sources.length === 0) {
    imp.skipped(where, group, "no source kudurru can read is left");
    return undefined;
  }
  const name = imp.uniqueName(
    "BlockList",
    mode === "block" ? group : `${group}-allow`,
  );
  imp.add("BlockList", name, { mode, sources: sources.slice(0, 100) });
  if (sources.length > 100) {
    imp.skipped(
      where,
      group,
      `only the first 100 of ${sources.length} sources fit one BlockList`,
    );
  }
  imp.mapped(where, group, `BlockList ${name} (mode ${mode})`);
  return name;
}

/** `blocking.schedules` → kudurru schedules, by blocky's name. */
function importSchedules(
  imp: BlockyImport,
  section: YamlMap,
): Map<string, Schedule> {
  const out = new Map<string, Schedule>();
  if (!isMap(section.schedules)) return out;
  for (const [name, value] of Object.entries(section.schedules)) {
    const where = `blocking.schedules.${name}`;
    if (!isMap(value)) {
      imp.skipped(where, show(value), "not a schedule");
      continue;
    }
    const weekdays = asList(value.weekdays).map((d) => String(d).toLowerCase());
    const clock = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;
    const start = value.start === undefined ? "00:00" : String(value.start);
    const end = value.end === undefined ? "00:00" : String(value.end);
    if (
      weekdays.length === 0 || !weekdays.every((d) => WEEKDAYS.includes(d)) ||
      !clock.test(start) || !clock.test(end)
    ) {
      imp.skipped(where, show(value), "weekdays or times kudurru cannot read");
      continue;
    }
    // start == end is the whole day in kudurru (src/blocking/policy/schedule.ts),
    // as a blocky schedule without start and end is.
    out.set(name, {
      weekdays: [...new Set(weekdays)] as Schedule["weekdays"],
      start,
      end,
    } as Schedule);
    imp.mapped(where, name, "schedule of the Policies of the lists using it");
  }
  return out;
}

/**
 * One blocky client key → its ClientGroup, its Policy (lists without a
 * schedule, upstream group) and one Policy per schedule of its other lists.
 */
function importClient(
  imp: BlockyImport,
  key: string,
  groups: string[],
  lists: Map<string, ListGroup>,
  schedules: Map<string, Schedule>,
  listSchedules: Map<string, string[]>,
): void {
  const where = `blocking.clientGroupsBlock.${key}`;
  const name = clientGroupName(imp, key);
  const known = groups.filter((g) => {
    if (lists.has(g)) return true;
    imp.skipped(where, g, `list group "${g}" has no list kudurru imported`);
    return false;
  });
  const refs = (gs: string[]) => ({
    block: gs.flatMap((g) => lists.get(g)?.deny ?? []),
    allow: gs.flatMap((g) => lists.get(g)?.allow ?? []),
  });
  const policySpec = (gs: string[]) => {
    const r = refs(gs);
    // blocky: a group with only allow lists allows only its names.
    const allowOnly = gs.some((g) =>
      !lists.get(g)?.deny && lists.get(g)?.allow
    );
    return {
      clientGroupRefs: [name],
      ...(r.block.length > 0 && { blockListRefs: r.block }),
      ...(r.allow.length > 0 && { allowListRefs: r.allow }),
      ...(allowOnly && { allowOnly: true }),
    };
  };
  const always = known.filter((g) => !listSchedules.has(g));
  const upstreamGroup = imp.clientUpstreams.get(key);
  const policyName = imp.uniqueName("Policy", name);
  imp.add("Policy", policyName, {
    ...policySpec(always),
    ...(upstreamGroup && { upstreamGroup }),
  });
  const details = [`ClientGroup ${name}`, `Policy ${policyName}`];
  const bySchedule = new Map<string, string[]>();
  for (const g of known) {
    for (const s of listSchedules.get(g) ?? []) {
      bySchedule.set(s, [...(bySchedule.get(s) ?? []), g]);
    }
  }
  for (const [s, gs] of bySchedule) {
    const policy = imp.uniqueName("Policy", `${name}-${s}`);
    imp.add("Policy", policy, {
      ...policySpec(gs),
      schedule: schedules.get(s),
    });
    details.push(`Policy ${policy} (lists ${gs.join(", ")} during ${s})`);
  }
  imp.mapped(
    imp.clientUpstreams.has(key) && groups.length === 0
      ? `upstreams.groups.${key}`
      : where,
    key,
    details.join(", "),
  );
}

/** The ClientGroup of a client key, created on first use. */
function clientGroupName(imp: BlockyImport, key: string): string {
  const existing = imp.clientNames.get(key);
  if (existing !== undefined) return existing;
  const name = imp.uniqueName("ClientGroup", key);
  imp.clientNames.set(key, name);
  if (key === "default") {
    // The everyone group kudurru seeds on first boot (src/objects/bootstrap.ts).
    imp.add("ClientGroup", name, {
      clients: [{ cidr: "0.0.0.0/0" }, { cidr: "::/0" }],
    });
    return name;
  }
  const clients: Record<string, unknown>[] = [clientEntry(key)];
  // blocky names clients from clientLookup.clients too: those addresses join a matching glob.
  if (!isIpAddress(key)) {
    for (const [client, ips] of imp.namedClients) {
      if (!globMatches(key, client)) continue;
      for (const ip of ips) clients.push({ ip, name: client });
    }
  }
  imp.add("ClientGroup", name, { clients });
  return name;
}

/** blockType, blockTTL and loading.* → the `blocking` settings. */
function importBlockingSettings(imp: BlockyImport, section: YamlMap): void {
  const blocking: Record<string, unknown> = {};
  if (section.blockType !== undefined) {
    const text = String(section.blockType).trim();
    const where = "blocking.blockType";
    if (/^zeroip$/i.test(text)) blocking.defaultResponse = "zeroIP";
    else if (/^nxdomain$/i.test(text)) blocking.defaultResponse = "nxdomain";
    else {
      const ips = text.split(",").map((s) => s.trim()).filter((s) => s);
      if (ips.length > 0 && ips.length <= 16 && ips.every(isIpAddress)) {
        blocking.defaultResponse = "customIP";
        blocking.customIPs = ips;
      }
    }
    if (blocking.defaultResponse === undefined) {
      imp.skipped(
        where,
        text,
        "neither zeroIp, nxDomain nor up to 16 IP addresses",
      );
    } else {
      imp.mapped(
        where,
        text,
        `blocking.defaultResponse ${blocking.defaultResponse}`,
      );
    }
  }
  if (section.blockTTL !== undefined) {
    const ms = blockyDurationMs(section.blockTTL);
    if (ms !== undefined && ms >= 0) {
      blocking.blockTTL = kudurruDuration(ms);
      imp.mapped(
        "blocking.blockTTL",
        show(section.blockTTL),
        "blocking.blockTTL",
      );
    } else {
      imp.skipped(
        "blocking.blockTTL",
        show(section.blockTTL),
        "not a duration",
      );
    }
  }
  const loading = isMap(section.loading) ? section.loading : {};
  const refresh = loading.refreshPeriod ?? section.refreshPeriod;
  if (refresh !== undefined) {
    const ms = blockyDurationMs(refresh);
    const where = loading.refreshPeriod !== undefined
      ? "blocking.loading.refreshPeriod"
      : "blocking.refreshPeriod";
    if (ms !== undefined && ms >= 60_000) {
      blocking.refreshInterval = kudurruDuration(ms);
      imp.mapped(where, show(refresh), "blocking.refreshInterval");
    } else {
      imp.skipped(
        where,
        show(refresh),
        "kudurru refreshes lists at least every minute; refresh cannot be switched off",
      );
    }
  }
  const strategy = loading.strategy ?? section.startStrategy;
  if (strategy !== undefined) {
    const s = String(strategy);
    if (["fast", "blocking", "failOnError"].includes(s)) {
      blocking.initStrategy = s;
      imp.mapped("blocking.loading.strategy", s, "blocking.initStrategy");
    } else imp.skipped("blocking.loading.strategy", s, "unknown strategy");
  }
  for (const key of Object.keys(loading)) {
    if (key === "refreshPeriod" || key === "strategy") continue;
    imp.skipped(
      `blocking.loading.${key}`,
      show(loading[key]),
      "kudurru's list downloads have no such setting",
    );
  }
  const handled = new Set([
    "denylists",
    "blackLists",
    "allowlists",
    "whiteLists",
    "clientGroupsBlock",
    "schedules",
    "listSchedules",
    "blockType",
    "blockTTL",
    "loading",
    "refreshPeriod",
    "startStrategy",
  ]);
  for (const key of Object.keys(section)) {
    if (handled.has(key)) continue;
    imp.skipped(
      `blocking.${key}`,
      show(section[key]),
      "no kudurru counterpart",
    );
  }
  if (Object.keys(blocking).length > 0) imp.settings.blocking = blocking;
}
