import assert from "node:assert/strict";
import { ApiError } from "./api.ts";
import {
  displayName,
  fieldErrors,
  issuesOf,
  nameProblem,
  namesIn,
  objectPath,
  ownership,
  qualifiedName,
} from "./lists_objects.ts";

Deno.test("names and paths of namespaced objects", () => {
  const ads = { metadata: { name: "ads", namespace: "default" } };
  const kids = { metadata: { name: "ads", namespace: "kids" } };
  assert.equal(displayName(ads), "ads");
  assert.equal(displayName(kids), "kids/ads");
  assert.equal(qualifiedName(ads), "default/ads");
  assert.equal(
    objectPath("blocklists", kids),
    "namespaces/kids/blocklists/ads",
  );
  assert.deepEqual(
    namesIn(
      [kids, ads, { metadata: { name: "b", namespace: "default" } }],
      "default",
    ),
    ["ads", "b"],
  );
});

Deno.test("ownership: files and integrations keep theirs; the first start's are taken over", () => {
  const owned = (managedBy?: string) => ({
    metadata: { name: "x", ...(managedBy !== undefined && { managedBy }) },
  });
  assert.deepEqual(ownership(owned("api")), { readOnly: false });
  assert.deepEqual(ownership(owned()), { readOnly: false });
  assert.equal(ownership(owned("bootstrap")).readOnly, false);
  assert.match(ownership(owned("bootstrap")).note!, /first start/);
  assert.deepEqual(ownership(owned("file:objects.d/lists.yaml")), {
    readOnly: true,
    note: "Managed by file objects.d/lists.yaml: change it there.",
  });
  assert.equal(ownership(owned("integration:dhcp")).readOnly, true);
});

Deno.test("issuesOf and fieldErrors: each field's error, the rest apart", () => {
  const error = new ApiError(422, "invalid", "Invalid", undefined, undefined, {
    issues: [
      { path: "spec.priority", message: "must be a whole number" },
      { path: "spec.customIPs[1]", message: "must be an IP address" },
      { path: "spec.schedule.tz", message: "must be an IANA time zone" },
      { path: "spec.colour", message: "is not a field" },
      { nonsense: true },
    ],
  });
  const issues = issuesOf(error);
  assert.equal(issues.length, 4);
  assert.deepEqual(
    fieldErrors(issues, ["spec.priority", "spec.customIPs", "spec.schedule"]),
    {
      byField: {
        "spec.priority": "must be a whole number",
        "spec.customIPs": "must be an IP address",
        "spec.schedule": "must be an IANA time zone",
      },
      rest: [{ path: "spec.colour", message: "is not a field" }],
    },
  );
  assert.deepEqual(issuesOf(new Error("network")), []);
});

Deno.test("nameProblem: DNS-1123 names only", () => {
  assert.equal(nameProblem("ads.v2-list"), undefined);
  assert.ok(nameProblem(""));
  assert.ok(nameProblem("Ads"));
  assert.ok(nameProblem("-ads"));
  assert.ok(nameProblem("a_b"));
});
