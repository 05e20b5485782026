/**
 * Which DNSZone object serves a zone name that several objects claim. The
 * oldest wins (creationTimestamp, then object name), so the choice never
 * depends on the order objects happen to be read in: otherwise a restart
 * could switch the served zone to another object, whose serial may be
 * lower, and serials must not go back (docs/design.md#zone-serials). The
 * others are not served and say so in their status.
 */
import type { DNSZone } from "../api/v1alpha1/dnszone.ts";
import { normalizeName } from "../dns/name.ts";

/** Orders zone objects oldest first; ties by object name. */
export function compareZoneObjects(a: DNSZone, b: DNSZone): number {
  const at = a.metadata.creationTimestamp ?? "";
  const bt = b.metadata.creationTimestamp ?? "";
  if (at !== bt) return at < bt ? -1 : 1;
  const an = a.metadata.name, bn = b.metadata.name;
  return an < bn ? -1 : an > bn ? 1 : 0;
}

/** The object name that serves each primary zone name (lowercased FQDN). */
export function primaryZoneOwners(
  zones: Iterable<DNSZone>,
): Map<string, string> {
  const owners = new Map<string, DNSZone>();
  for (const zone of zones) {
    if (zone.spec?.type !== "primary") continue;
    const name = zoneNameOf(zone);
    if (name === undefined) continue;
    const held = owners.get(name);
    if (held === undefined || compareZoneObjects(zone, held) < 0) {
      owners.set(name, zone);
    }
  }
  return new Map([...owners].map(([name, zone]) => [name, zone.metadata.name]));
}

/** The zone's name as a lowercased FQDN; undefined without one. */
function zoneNameOf(zone: DNSZone): string | undefined {
  const name = zone.spec?.zoneName;
  return name ? normalizeName(name) : undefined;
}
