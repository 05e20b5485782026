import assert from "node:assert/strict";
import {
  checkAuditQuery,
  decodeAuditContinue,
  encodeAuditContinue,
  InvalidAuditQueryError,
} from "./audit_query.ts";

Deno.test("audit query defaults to 100 rows and keeps only the filters given", () => {
  assert.deepEqual(checkAuditQuery(), { limit: 100 });
  assert.deepEqual(checkAuditQuery({ kind: "DNSZone", limit: 5 }), {
    kind: "DNSZone",
    limit: 5,
  });
});

Deno.test("audit query writes since in the stored form", () => {
  assert.equal(
    checkAuditQuery({ since: "2026-06-01T14:00:00+02:00" }).since,
    "2026-06-01T12:00:00.000Z",
  );
});

Deno.test("audit continue tokens round-trip and refuse anything else", () => {
  assert.equal(decodeAuditContinue(encodeAuditContinue(42)), 42);
  assert.equal(
    checkAuditQuery({ continue: encodeAuditContinue(7) }).beforeId,
    7,
  );
  for (const bad of ["", "%%%", btoa("[]"), btoa('{"before":"7"}')]) {
    assert.throws(() => decodeAuditContinue(bad), InvalidAuditQueryError, bad);
  }
  assert.throws(
    () => checkAuditQuery({ limit: 0 }),
    (e: unknown) => e instanceof InvalidAuditQueryError && e.field === "limit",
  );
});
