import assert from "node:assert/strict";
import type { DNSZone } from "../api/v1alpha1/dnszone.ts";
import { forwardZoneStatus } from "./zone_status.ts";

const NOW = new Date("2027-01-15T12:00:00Z");

function forwardZone(upstreamGroup: string): DNSZone {
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "DNSZone",
    metadata: { name: "lab", generation: 3 },
    spec: {
      zoneName: "lab.example.",
      type: "forward",
      forward: { upstreamGroup },
    },
  } as DNSZone;
}

function ready(zone: DNSZone, groups?: readonly string[]) {
  const status = forwardZoneStatus(zone, NOW, groups);
  assert.equal(status.observedGeneration, 3);
  return status.conditions?.find((c) => c.type === "Ready");
}

Deno.test("forwardZoneStatus is Ready when its upstream group exists", () => {
  const condition = ready(forwardZone("corp"), ["corp", "default"]);
  assert.deepEqual(
    [condition?.status, condition?.reason, condition?.message],
    ["True", "Forwarding", 'Forwarding to upstream group "corp"'],
  );
});

Deno.test("forwardZoneStatus is not Ready when its upstream group does not exist", () => {
  const condition = ready(forwardZone("corpp"), ["corp", "default"]);
  assert.deepEqual(
    [condition?.status, condition?.reason, condition?.message],
    [
      "False",
      "UnknownUpstreamGroup",
      'spec.forward.upstreamGroup names no upstream group "corpp" ' +
      "(groups: corp, default); queries for lab.example. are answered SERVFAIL",
    ],
  );
});

Deno.test("forwardZoneStatus becomes Ready once the group is configured", () => {
  const zone = forwardZone("corpp");
  const before = forwardZoneStatus(zone, NOW, ["default"]);
  const later = new Date(NOW.getTime() + 60_000);
  const after = forwardZoneStatus({ ...zone, status: before }, later, [
    "corpp",
    "default",
  ]);
  const condition = after.conditions?.find((c) => c.type === "Ready");
  assert.equal(condition?.status, "True");
  // The status flipped, so the transition time moved.
  assert.equal(condition?.lastTransitionTime, later.toISOString());
});

Deno.test("forwardZoneStatus does not check the group when no groups are given", () => {
  assert.equal(ready(forwardZone("anything"))?.status, "True");
});
