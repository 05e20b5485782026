/**
 * A BIND zone's access and notify options as a kudurru DNSZone `policy`:
 * `allow-query` → queryAccess/queryACL, `allow-transfer` →
 * zoneTransfer/transferACL/transferTSIGKeyRefs, `notify` and `also-notify`
 * → notify/notifyTargets; what does not map (a key on a query list, a key
 * per NOTIFY target, dynamic updates) is noted, never dropped in silence.
 * The zone's own option wins over the one in `options` (`option`).
 */
import {
  hostPort,
  readMatchList,
  readServerList,
} from "./bind_address_list.ts";
import {
  blockOf,
  type ConfBlock,
  type ConfStatement,
  wordsOf,
} from "./bind_conf_parse.ts";

/** What the policy is read from, as the named.conf import knows it. */
export interface PolicySources {
  /** The zone's option, else the one of `options`. */
  option(name: string): ConfStatement | undefined;
  /** The zone's own option only. */
  zoneOption(name: string): ConfStatement | undefined;
  acls: Map<string, ConfBlock>;
  primaryLists: Map<string, ConfStatement>;
  /** The reference of a key a list names. */
  keyRef(name: string): string;
  /** Reports what of `st` does not map, and why. */
  note(st: ConfStatement, detail: string): void;
}

/** An empty address match list (a statement written without braces). */
const EMPTY: ConfBlock = { statements: [], line: 0 };

/** The zone's `policy` from its allow-*, also-notify and notify options. */
export function zonePolicy(zone: PolicySources): Record<string, unknown> {
  const policy: Record<string, unknown> = {};
  const get = zone.option;
  const note = zone.note;
  const query = get("allow-query");
  if (query !== undefined) {
    const list = readMatchList(blockOf(query) ?? EMPTY, zone.acls);
    for (const p of list.problems) note(query, `left out of queryACL: ${p}`);
    if (list.keys.length > 0) {
      note(
        query,
        `key ${list.keys.join(", ")}: kudurru does not check TSIG on queries`,
      );
    }
    if (list.none || (!list.any && list.entries.length === 0)) {
      policy.queryAccess = "deny";
    } else if (!list.any) {
      policy.queryAccess = "useNetworkACL";
      policy.queryACL = list.entries.slice(0, 1000);
    }
  }
  const transfer = get("allow-transfer");
  if (transfer !== undefined) {
    const list = readMatchList(blockOf(transfer) ?? EMPTY, zone.acls);
    for (const p of list.problems) {
      note(transfer, `left out of transferACL: ${p}`);
    }
    const refs = [...new Set(list.keys.map((k) => zone.keyRef(k)))];
    if (list.any) policy.zoneTransfer = "allow";
    else if (list.entries.length > 0) {
      policy.zoneTransfer = "useNetworkACL";
      policy.transferACL = list.entries.slice(0, 1000);
    } else if (refs.length > 0) policy.zoneTransfer = "allow";
    else policy.zoneTransfer = "deny";
    if (refs.length > 0) {
      policy.transferTSIGKeyRefs = refs.slice(0, 16);
      if (list.entries.length > 0) {
        note(
          transfer,
          "BIND lets a transfer through on a listed address or a key; kudurru wants the address and a signature with one of transferTSIGKeyRefs",
        );
      }
    }
  }
  const notifyOption = get("notify");
  const notify = notifyOption
    ? (wordsOf(notifyOption)[1] ?? "").toLowerCase()
    : undefined;
  const also = get("also-notify");
  const targets: string[] = [];
  if (also !== undefined) {
    const list = readServerList(also, zone.primaryLists);
    for (const p of list.problems) {
      note(also, `left out of notifyTargets: ${p}`);
    }
    for (const s of list.servers) {
      const target = hostPort(s.address, s.port, true);
      if (s.key !== undefined) {
        note(
          also,
          `${target} key ${s.key}: kudurru signs every NOTIFY with the zone's first transferTSIGKeyRefs, not a key per target`,
        );
      }
      if (s.tls !== undefined) {
        note(also, `${target} tls ${s.tls}: NOTIFY goes over plain DNS`);
      }
      if (!targets.includes(target) && targets.length < 64) {
        targets.push(target);
      }
    }
  }
  if (notify === "no") {
    policy.notify = "none";
    if (targets.length > 0) {
      note(also!, "notify no: the also-notify targets are not used");
    }
  } else if (notify === "explicit") {
    policy.notify = targets.length > 0 ? "specified" : "none";
  } else if (notify !== undefined) {
    // yes, primary-only, master-only: the zone's NS and the extra targets.
    policy.notify = targets.length > 0 ? "both" : "zoneNameServers";
  } else if (targets.length > 0) {
    // BIND's default is notify yes.
    policy.notify = "both";
  }
  if (policy.notify === "specified" || policy.notify === "both") {
    policy.notifyTargets = targets;
  }
  const update = zone.zoneOption("allow-update");
  if (update !== undefined) {
    const list = readMatchList(blockOf(update) ?? EMPTY, zone.acls);
    if (!list.none) {
      note(
        update,
        "dynamic updates (RFC 2136) arrive in a later version of kudurru: policy.update stays deny",
      );
    }
  }
  return policy;
}
