/**
 * Which ClientGroups a client belongs to (the identify stage), built
 * once per snapshot from the groups' `clients` entries:
 *
 * - `ip` and `cidr`: longest prefix wins. An `ip` is a /32 (IPv4) or /128
 *   (IPv6); among all entries containing the client's address only the
 *   longest prefix length counts, and every group with an entry of that
 *   length is a member. Two groups at the same network are a tie: both are
 *   members, and the tie is reported in `diagnoses`.
 * - `clientID`: the DoT/DoH client ID, exact and case-insensitive.
 * - `hostname`: a glob over the client's PTR name (see hostname_glob.ts).
 * - `mac`, `nameGlob`: no source feeds them yet (MAC inventory and display
 *   names arrive with integrations), so they match nothing; reported in
 *   `diagnoses`.
 * - A prefix of length 0 (0.0.0.0/0, ::/0: the seeded ClientGroup/default)
 *   is the catch-all: it counts only when nothing else matched.
 *
 * The result is the union of the address, client ID and hostname groups in
 * the order the snapshot lists the groups.
 */
import type { ClientGroupData } from "../blocking_snapshot.ts";
import {
  formatPrefix,
  maskV4,
  maskV6,
  type NumericPrefix,
  parseNumericAddress,
  parseNumericPrefix,
} from "../../dns/numeric_address.ts";
import { compileHostnameGlob } from "./hostname_glob.ts";

export interface GroupIndex {
  /**
   * The groups of a client: `address` as the socket reported it, the
   * DoT/DoH client ID if any, its PTR name (without trailing dot) if known.
   * A fresh array in snapshot order; [] when nothing matched.
   */
  match(
    address: string,
    clientId?: string | null,
    hostname?: string | null,
  ): string[];
  /** True when some group has `hostname` entries (only then is a PTR lookup worth it). */
  readonly needsHostnames: boolean;
  /** Operator-facing messages: prefix ties, entries that can never match. */
  readonly diagnoses: string[];
}

/** Networks of one family by prefix length, then by masked value. */
class PrefixTable<V extends number | bigint> {
  readonly #byLength = new Map<number, Map<V, Set<string>>>();
  /** Lengths present, longest first. */
  #lengths: number[] = [];

  add(value: V, length: number, group: string): void {
    let networks = this.#byLength.get(length);
    if (networks === undefined) {
      networks = new Map();
      this.#byLength.set(length, networks);
      this.#lengths = [...this.#byLength.keys()].sort((a, b) => b - a);
    }
    let groups = networks.get(value);
    if (groups === undefined) networks.set(value, groups = new Set());
    groups.add(group);
  }

  /** The groups at the longest network containing `value`, and its length. */
  longest(
    value: V,
    mask: (value: V, length: number) => V,
  ): { length: number; groups: Set<string> } | undefined {
    for (const length of this.#lengths) {
      const groups = this.#byLength.get(length)!.get(mask(value, length));
      if (groups !== undefined) return { length, groups };
    }
    return undefined;
  }

  /** Every network listed by more than one group. */
  *ties(): Generator<{ value: V; length: number; groups: Set<string> }> {
    for (const length of this.#lengths) {
      for (const [value, groups] of this.#byLength.get(length)!) {
        if (groups.size > 1) yield { value, length, groups };
      }
    }
  }
}

/** Builds the index for `groups` (pure; never throws on bad entries, it reports them). */
export function buildGroupIndex(groups: ClientGroupData[]): GroupIndex {
  const order = new Map<string, number>();
  const v4 = new PrefixTable<number>();
  const v6 = new PrefixTable<bigint>();
  const byClientId = new Map<string, Set<string>>();
  const globs: { pattern: RegExp; group: string }[] = [];
  const diagnoses: string[] = [];
  const unmatchable = new Map<string, Set<string>>();

  for (const { key, clients } of groups) {
    if (!order.has(key)) order.set(key, order.size);
    for (const client of clients) {
      const network = client.ip ?? client.cidr;
      if (network !== undefined) {
        const prefix = parseNumericPrefix(network);
        if (prefix === undefined) {
          diagnoses.push(
            `ClientGroup ${key}: "${network}" is not an address or network; ignored`,
          );
        } else if (prefix.v4) v4.add(prefix.value, prefix.length, key);
        else v6.add(prefix.value, prefix.length, key);
      } else if (client.clientID !== undefined) {
        const id = client.clientID.toLowerCase();
        const set = byClientId.get(id) ?? new Set<string>();
        byClientId.set(id, set.add(key));
        // Indexed for the DoT/DoH listeners that will name clients; no
        // listener does yet, so say that these match nobody today.
        const unnamed = unmatchable.get("clientID") ?? new Set<string>();
        unmatchable.set("clientID", unnamed.add(key));
      } else if (client.hostname !== undefined) {
        try {
          globs.push({
            pattern: compileHostnameGlob(client.hostname),
            group: key,
          });
        } catch {
          diagnoses.push(
            `ClientGroup ${key}: hostname "${client.hostname}" is not a valid glob; ignored`,
          );
        }
      } else {
        const kind = client.mac !== undefined ? "mac" : "nameGlob";
        const set = unmatchable.get(kind) ?? new Set<string>();
        unmatchable.set(kind, set.add(key));
      }
    }
  }

  for (const table of [v4, v6] as PrefixTable<number | bigint>[]) {
    for (const tie of table.ties()) {
      const network = formatPrefix(
        { v4: table === v4, ...tie } as NumericPrefix,
      );
      diagnoses.push(
        `ClientGroups ${[...tie.groups].join(", ")} all list ${network}; ` +
          "clients in it belong to each of them",
      );
    }
  }
  for (const [kind, keys] of unmatchable) {
    diagnoses.push(
      `ClientGroups ${
        [...keys].join(", ")
      } have ${kind} entries, which match ` +
        "no client yet (no source for them in this version)",
    );
  }

  return {
    needsHostnames: globs.length > 0,
    diagnoses,
    match(address, clientId, hostname) {
      const found = new Set<string>();
      if (clientId) {
        for (const g of byClientId.get(clientId.toLowerCase()) ?? []) {
          found.add(g);
        }
      }
      if (hostname) {
        const name = hostname.replace(/\.$/, "");
        for (const { pattern, group } of globs) {
          if (pattern.test(name)) found.add(group);
        }
      }
      const parsed = parseNumericAddress(address);
      const hit = parsed === undefined
        ? undefined
        : parsed.v4
        ? v4.longest(parsed.value, maskV4)
        : v6.longest(parsed.value, maskV6);
      // The catch-all counts only when nothing more specific matched.
      if (hit !== undefined && (hit.length > 0 || found.size === 0)) {
        for (const g of hit.groups) found.add(g);
      }
      return [...found].sort((a, b) => order.get(a)! - order.get(b)!);
    },
  };
}
