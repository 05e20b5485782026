/**
 * A secondary zone's copy outlives a restart: kept in local.db, served at
 * once by the next start even while no primary answers, and not served
 * (SERVFAIL) once it is older than the SOA expire.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { DNSZone } from "../api/v1alpha1/dnszone.ts";
import { memoryLogger } from "../log/logger.ts";
import { createMemoryStore } from "../store/memory/memory_store.ts";
import { finishWithin, waitFor } from "../snapshot/testdata/zone_objects.ts";
import { rrsetsFromText } from "../testing/zone_text.ts";
import { SECONDARY_COPIES_SQL, SecondaryCopies } from "./secondary_copies.ts";
import { startSecondaryZones } from "./secondary_zones.ts";

Deno.test.sanitizer({ ops: true, resources: true });

const API = { manager: "api" };

function secondaryZone(port: number): DNSZone {
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "DNSZone",
    metadata: { name: "example-org" },
    spec: {
      zoneName: "example.org.",
      type: "secondary",
      secondary: { primaries: [`127.0.0.1:${port}`], transferProtocol: "tcp" },
    },
  } as DNSZone;
}

/** A port nothing listens on. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

Deno.test("a kept copy is served at once after a restart, and expires by its SOA", async () => {
  const dir = await Deno.makeTempDir();
  const db = new DatabaseSync(join(dir, "local.db"));
  db.exec(SECONDARY_COPIES_SQL);
  const copies = new SecondaryCopies(db);
  const rrsets = rrsetsFromText([
    "example.org. 3600 IN SOA ns1.example.org. hostmaster.example.org. 42 3600 600 86400 300",
    "example.org. 3600 IN NS ns1.example.org.",
    "www.example.org. 300 IN A 192.0.2.1",
  ]);
  let clock = Date.parse("2030-01-01T00:00:00Z");
  copies.save("example.org.", {
    serial: 42,
    rrsets,
    transferredAt: clock - 1000,
    refreshedAt: clock - 1000,
  });
  const store = createMemoryStore();
  await store.apply(secondaryZone(closedPort()), API);
  let changes = 0;
  const refreshes: string[] = [];
  const zones = startSecondaryZones({
    store,
    logger: memoryLogger(),
    copies,
    keys: () => [],
    onChange: () => changes++,
    onRefresh: (zone, result) => refreshes.push(`${zone} ${result}`),
    now: () => clock,
    transfer: { timeoutMs: 1000 },
  });
  try {
    await waitFor(
      "the zone",
      () => zones.contentOf("example.org.") !== undefined,
    );
    const served = zones.contentOf("example.org.")!;
    assert.equal(served.serial, 42);
    assert.equal(served.unavailable, undefined);
    assert.ok(served.rrsets.some((r) => r.name === "www.example.org."));
    // The primary does not answer: still served, and the status says why.
    await waitFor("the failed refresh's status", async () => {
      const zone = await store.get({
        kind: "DNSZone",
        namespace: "",
        name: "example-org",
      }) as DNSZone;
      return zone.status?.conditions?.[0]?.reason === "TransferFailed";
    });
    assert.equal(zones.contentOf("example.org.")!.unavailable, undefined);
    assert.equal(refreshes[0], "example.org. unreachable");
    // A day later (the SOA expire), the next failed refresh expires it.
    clock += 86_400_000;
    const before = changes;
    zones.notified("example.org.", "127.0.0.1");
    await waitFor(
      "the expiry",
      () => zones.contentOf("example.org.")!.unavailable !== undefined,
    );
    assert.ok(changes > before);
    assert.match(zones.contentOf("example.org.")!.unavailable!, /expired/);
  } finally {
    await finishWithin("the secondary zones' stop", zones.stop());
    await store.close();
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a zone never transferred answers SERVFAIL until its first transfer", async () => {
  const store = createMemoryStore();
  await store.apply(secondaryZone(closedPort()), API);
  const zones = startSecondaryZones({
    store,
    logger: memoryLogger(),
    keys: () => [],
    onChange: () => {},
    transfer: { timeoutMs: 1000 },
  });
  try {
    await waitFor(
      "the zone",
      () => zones.contentOf("example.org.") !== undefined,
    );
    assert.match(
      zones.contentOf("example.org.")!.unavailable!,
      /not transferred/,
    );
  } finally {
    await finishWithin("the secondary zones' stop", zones.stop());
    await store.close();
  }
});
