/**
 * Where dnsmasq's local records go in kudurru: primary DNSZones (kudurru
 * serves records only inside a zone it is authoritative for) and one
 * DNSRecordSet per zone. A record goes in the longest zone the configuration
 * itself declares (`address=/d/`, `local=/d/`, `server=/d/`, `domain=`);
 * otherwise in a zone for its parent domain, or for the name itself when the
 * parent is a single label (a zone for `com.` would swallow every .com name).
 * Conflicts kudurru would refuse when serving (a CNAME beside other data,
 * RFC 1034 §3.6.2) are refused here, per line.
 */
import { API_VERSION, type KObject } from "../api/v1alpha1/meta.ts";
import { MAX_ENDPOINTS } from "../api/v1alpha1/dnsrecordset.ts";
import type { RecordEntry } from "./dnsmasq_records.ts";

/** Namespace of the imported record sets, block lists and policy. */
export const IMPORT_NAMESPACE = "default";

interface Slot {
  targets: string[];
  ttl?: number;
}

/** Collects records and declared zones, then builds the objects. */
export class ZoneBuilder {
  /** Declared zone apexes (lowercase, no trailing dot) and why. */
  readonly declared = new Map<string, string>();
  private readonly records = new Map<string, Map<string, Slot>>();

  /** Declares `apex` a zone (`why` names the line for the report). */
  declare(apex: string, why: string): void {
    if (!this.declared.has(apex)) this.declared.set(apex, why);
  }

  /**
   * Adds the records of one line, all or none: returns why not when one of
   * them conflicts with a CNAME.
   */
  add(entries: RecordEntry[]): string | undefined {
    for (const e of entries) {
      const types = this.records.get(e.name);
      if (types === undefined) continue;
      const cname = types.get("CNAME");
      if (e.type === "CNAME") {
        if (cname !== undefined && !cname.targets.includes(e.target)) {
          return `${e.name} already has a CNAME (${
            cname.targets[0]
          }); a name holds one`;
        }
        const other = [...types.keys()].find((t) => t !== "CNAME");
        if (other !== undefined) {
          return `${e.name} already has ${other} records; a CNAME owns its name alone (RFC 1034 §3.6.2)`;
        }
      } else if (cname !== undefined) {
        return `${e.name} is a CNAME (${
          cname.targets[0]
        }); a CNAME owns its name alone (RFC 1034 §3.6.2)`;
      }
    }
    for (const e of entries) {
      const types = this.records.get(e.name) ?? new Map<string, Slot>();
      this.records.set(e.name, types);
      const slot = types.get(e.type) ?? { targets: [] };
      types.set(e.type, slot);
      if (!slot.targets.includes(e.target)) slot.targets.push(e.target);
      if (e.ttl !== undefined) {
        slot.ttl = slot.ttl === undefined ? e.ttl : Math.min(slot.ttl, e.ttl);
      }
    }
    return undefined;
  }

  /** True when some record is `domain` or below it. */
  hasOwnerUnder(domain: string): boolean {
    return [...this.records.keys()].some((o) =>
      o === domain || o.endsWith(`.${domain}`)
    );
  }

  /**
   * The zone of every owner: the longest declared or already chosen zone
   * holding it, else its parent (or itself, under a single-label parent).
   * Shorter names go first, so a parent's zone takes its children.
   */
  zoneOf(): Map<string, string> {
    const zones = new Set(this.declared.keys());
    const out = new Map<string, string>();
    const owners = [...this.records.keys()].sort((a, b) =>
      labels(a) - labels(b) || a.localeCompare(b)
    );
    for (const owner of owners) {
      const bare = owner.replace(/^\*\./, "");
      let zone = longestZone(bare, zones);
      if (zone === undefined) {
        const parent = bare.slice(bare.indexOf(".") + 1);
        zone = labels(parent) >= 2 ? parent : bare;
        zones.add(zone);
      }
      out.set(owner, zone);
    }
    return out;
  }

  /**
   * The DNSZones (declared ones even when empty: they stop forwarding) and
   * their DNSRecordSets, with the zone object names by apex.
   */
  build(defaultTTL: number | undefined): {
    objects: KObject[];
    zoneNames: Map<string, string>;
  } {
    const zoneOf = this.zoneOf();
    const apexes = [...new Set([...this.declared.keys(), ...zoneOf.values()])]
      .sort();
    const taken = new Set<string>();
    const zoneNames = new Map<string, string>();
    const objects: KObject[] = [];
    for (const apex of apexes) {
      const name = uniqueName(objectName(apex), taken);
      zoneNames.set(apex, name);
      objects.push({
        apiVersion: API_VERSION,
        kind: "DNSZone",
        metadata: { name },
        spec: {
          zoneName: `${apex}.`,
          type: "primary",
          ...(defaultTTL === undefined ? {} : { defaultTTL }),
        },
      });
    }
    const endpointsByZone = new Map<string, Record<string, unknown>[]>();
    for (const [owner, types] of [...this.records].sort(byName)) {
      const apex = zoneOf.get(owner)!;
      const list = endpointsByZone.get(apex) ?? [];
      endpointsByZone.set(apex, list);
      for (const [type, slot] of types) {
        list.push({
          dnsName: owner,
          recordType: type,
          targets: type === "CNAME" ? slot.targets.slice(0, 1) : slot.targets,
          ...(slot.ttl === undefined ? {} : { recordTTL: slot.ttl }),
        });
      }
    }
    // A record set is named after its zone; the sets of a zone past its
    // first 1,000 endpoints get -part-2, -part-3…, unique among them all.
    const setNames = new Set(zoneNames.values());
    for (const [apex, endpoints] of endpointsByZone) {
      const zone = zoneNames.get(apex)!;
      for (let i = 0; i < endpoints.length; i += MAX_ENDPOINTS) {
        objects.push({
          apiVersion: API_VERSION,
          kind: "DNSRecordSet",
          metadata: {
            name: i === 0 ? zone : uniqueName(
              `${zone}-part-${i / MAX_ENDPOINTS + 1}`,
              setNames,
            ),
            namespace: IMPORT_NAMESPACE,
          },
          spec: {
            zoneRef: { name: zone },
            endpoints: endpoints.slice(i, i + MAX_ENDPOINTS),
          },
        });
      }
    }
    return { objects, zoneNames };
  }
}

function byName(a: [string, unknown], b: [string, unknown]): number {
  return a[0].localeCompare(b[0]);
}

function labels(name: string): number {
  return name.split(".").length;
}

/** The longest of `zones` that is `name` or one of its parents. */
export function longestZone(
  name: string,
  zones: Iterable<string>,
): string | undefined {
  let best: string | undefined;
  for (const zone of zones) {
    if (name === zone || name.endsWith(`.${zone}`)) {
      if (best === undefined || zone.length > best.length) best = zone;
    }
  }
  return best;
}

/** An object name (DNS-1123 label-ish) from a domain: `home.example` → `home-example`. */
export function objectName(domain: string): string {
  const slug = domain.toLowerCase().replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "").slice(0, 200).replace(/-+$/, "");
  return slug === "" ? "dnsmasq" : slug;
}

/** `base`, or `base-2`, `base-3`… when taken; records the one chosen. */
export function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
  taken.add(name);
  return name;
}
