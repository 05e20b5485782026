import assert from "node:assert/strict";
import { zone } from "../conformance_fixtures.ts";
import { queryMemoryAudit } from "./memory_audit.ts";

Deno.test("memory audit reader returns the v3 extras a row carries, as copies", () => {
  const row = {
    time: "2026-06-01T12:00:00.000Z",
    actor: "alice",
    manager: "api",
    action: "update",
    generation: 2,
    key: { kind: "DNSZone", namespace: "", name: "a" },
    resourceVersion: 7,
    authorization: "session",
    client: "192.0.2.7",
    before: zone("a"),
    after: zone("a", "b.example."),
  };
  const [read] = queryMemoryAudit([row]).items;
  assert.equal(read?.authorization, "session");
  assert.equal(read?.client, "192.0.2.7");
  assert.deepEqual(read?.after, row.after);
  (read!.before as { spec: { zoneName: string } }).spec.zoneName = "x.";
  assert.equal(
    (row.before.spec as { zoneName: string }).zoneName,
    "a.example.",
    "the row is not shared",
  );
});
