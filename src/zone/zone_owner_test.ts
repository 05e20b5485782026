import assert from "node:assert/strict";
import type { DNSZone } from "../api/v1alpha1/dnszone.ts";
import { compareZoneObjects, primaryZoneOwners } from "./zone_owner.ts";

function zone(
  name: string,
  zoneName: string,
  created: string,
  type: "primary" | "forward" = "primary",
): DNSZone {
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "DNSZone",
    metadata: { name, creationTimestamp: created },
    spec: { zoneName, type },
  } as DNSZone;
}

Deno.test("the oldest DNSZone object serves a zone name, then the first by name", () => {
  const zones = [
    zone("zzz", "example.org.", "2030-01-01T00:00:00Z"),
    zone("aaa", "EXAMPLE.org", "2030-01-02T00:00:00Z"),
    zone("fwd", "example.org.", "2029-01-01T00:00:00Z", "forward"),
    zone("b", "other.test.", "2030-01-01T00:00:00Z"),
    zone("a", "other.test.", "2030-01-01T00:00:00Z"),
  ];
  assert.deepEqual(
    primaryZoneOwners(zones),
    new Map([["example.org.", "zzz"], ["other.test.", "a"]]),
  );
  assert.deepEqual(
    [...zones].sort(compareZoneObjects).map((z) => z.metadata.name),
    ["fwd", "a", "b", "zzz", "aaa"],
  );
});
