import { deepEqual, equal } from "node:assert/strict";
import { ApiError } from "./api.ts";
import {
  boxError,
  fieldErrors,
  issuesOf,
  recordField,
  zoneField,
} from "./zones_issues.ts";

/** A 422 as api.ts makes it from the API's answer. */
function invalid(issues: { path: string; message: string }[]): ApiError {
  const first = issues[0]!;
  return new ApiError(
    422,
    "invalid",
    `${first.path}: ${first.message}`,
    undefined,
    undefined,
    { key: "invalid", message: `${first.path}: ${first.message}`, issues },
  );
}

Deno.test("recordField maps the route's fields and the record set's endpoint fields", () => {
  equal(recordField("name"), "name");
  equal(recordField("type"), "type");
  equal(recordField("ttl"), "ttl");
  equal(recordField("data"), "data");
  equal(recordField("spec.endpoints[0].targets[0]"), "data");
  equal(recordField("spec.endpoints[12].recordTTL"), "ttl");
  equal(recordField("spec.endpoints[0].dnsName"), "name");
  equal(recordField("spec.endpoints[0].recordType"), "type");
  equal(recordField("spec.zoneRef.name"), undefined);
  equal(recordField("metadata.name"), undefined);
});

Deno.test("zoneField maps a DNSZone's paths to the zone form's fields", () => {
  equal(zoneField("metadata.name"), "name");
  equal(zoneField("spec.zoneName"), "zoneName");
  equal(zoneField("spec.soa.mname"), "mname");
  equal(zoneField("spec.soa.refresh"), "refresh");
  equal(zoneField("spec.soa"), "mname");
  equal(zoneField("spec.nameservers[1]"), "nameservers");
  equal(zoneField("spec.defaultTTL"), "defaultTTL");
  equal(zoneField("spec.policy.queryACL"), undefined);
  equal(zoneField("kind"), undefined);
});

Deno.test("a bad A record's message goes under the data field, and no box shows it again", () => {
  const error = invalid([{
    path: "spec.endpoints[0].targets[0]",
    message: 'A address "not-an-ip" is not a dotted-quad IPv4 address',
  }]);
  const errors = fieldErrors(error, recordField);
  deepEqual(errors, {
    fields: {
      data: 'A address "not-an-ip" is not a dotted-quad IPv4 address',
    },
    other: [],
  });
  equal(boxError(error, errors), undefined);
});

Deno.test("issues no field shows stay for the error box; two on one field join", () => {
  const error = invalid([
    { path: "spec.soa.mname", message: "is required" },
    { path: "spec.soa.mname", message: "must be absolute" },
    { path: "spec.policy.queryACL", message: "must not be empty" },
  ]);
  const errors = fieldErrors(error, zoneField);
  deepEqual(errors.fields, { mname: "is required; must be absolute" });
  deepEqual(errors.other, [{
    path: "spec.policy.queryACL",
    message: "must not be empty",
  }]);
  equal(boxError(error, errors), error);
});

Deno.test("errors without issues (409, 403, network) go to the box", () => {
  const conflict = new ApiError(409, "conflict", "changed", "read it again");
  const errors = fieldErrors(conflict, zoneField);
  deepEqual(errors, { fields: {}, other: [] });
  equal(boxError(conflict, errors), conflict);
  deepEqual(issuesOf(new Error("no")), []);
  equal(boxError(undefined, errors), undefined);
});

Deno.test("issuesOf keeps only well-formed issues", () => {
  const error = new ApiError(422, "invalid", "x", undefined, undefined, {
    issues: [{ path: "name", message: "bad" }, { path: 3 }, null, "text"],
  });
  deepEqual(issuesOf(error), [{ path: "name", message: "bad" }]);
});
