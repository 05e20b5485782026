import type { DataPlaneSettings } from "../pipeline/settings.ts";
import { loadConfig } from "../config/load.ts";
import assert from "node:assert/strict";
import type { DNSZone } from "../api/v1alpha1/dnszone.ts";
import { memoryLogger } from "../log/logger.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import { createMemoryStore } from "../store/memory/memory_store.ts";
import { ExpiredError, type Store } from "../store/store.ts";
import { formatRRSet } from "../zone/format.ts";
import { debounceWindow, startSnapshotBuilder } from "./builder.ts";
import {
  a,
  breakableStore,
  finishWithin,
  forwardZone,
  primaryZone,
  recordSet,
  sleep,
  waitFor,
} from "./testdata/zone_objects.ts";

const API = { manager: "api" };

// Leaked loops fail the test that leaked them; left running, they would keep
// the event loop alive and turn a later never-settling await into a silent
// hang (Deno 2.9 leaves these sanitizers off by default).
Deno.test.sanitizer({ ops: true, resources: true });

/** A builder on `store` that records every snapshot it publishes. */
function record(
  store: Store,
  debounceMs = 20,
  now = () => new Date("2030-01-01T00:00:00Z"),
) {
  const snapshots: Snapshot[] = [];
  const logger = memoryLogger();
  const builder = startSnapshotBuilder({
    store,
    nodeName: "node-a",
    version: "0.0.0-test",
    logger,
    debounceMs,
    now,
    onSnapshot: (s) => snapshots.push(s),
    backoff: { initialMs: 5, maxMs: 20 },
  });
  return {
    builder,
    snapshots,
    logger,
    last: () => snapshots.at(-1),
    synced: () => finishWithin("The first snapshot", builder.synced),
    stop: () => finishWithin("The snapshot builder's stop", builder.stop()),
    async [Symbol.asyncDispose]() {
      await finishWithin("The snapshot builder's stop", builder.stop());
    },
  };
}

/** The zone's records as presentation lines, apex SOA and NS left out. */
function recordsOf(s: Snapshot | undefined, zoneName: string): string[] {
  const zone = s?.zones.find((z) => z.name === zoneName);
  return (zone?.rrsets ?? [])
    .filter((r) => r.type !== 6 && !(r.type === 2 && r.name === zoneName))
    .flatMap((r) => formatRRSet(r));
}

async function storeWithZone() {
  const store = createMemoryStore();
  await store.apply(primaryZone("example-org", "example.org."), API);
  await store.apply(
    recordSet("apps", "web", "example-org", [
      a("www.example.org", "192.0.2.1"),
    ]),
    API,
  );
  return store;
}

Deno.test("startSnapshotBuilder publishes the zones once both watches have synced", async () => {
  const store = await storeWithZone();
  {
    await using b = record(store);
    await b.synced();
    assert.equal(b.snapshots.length, 1);
    const s = b.snapshots[0]!;
    assert.equal(s.version, 1);
    assert.equal(s.builtAt, "2030-01-01T00:00:00.000Z");
    assert.deepEqual(s.node, { name: "node-a", version: "0.0.0-test" });
    assert.deepEqual(s.zones.map((z) => z.name), ["example.org."]);
    assert.deepEqual(recordsOf(s, "example.org."), [
      "www.example.org. 300 IN A 192.0.2.1",
    ]);
    assert.equal(b.builder.current(), s);
  }
  await store.close();
});

Deno.test("startSnapshotBuilder serves serial 1 until the zone is stamped", async () => {
  const store = await storeWithZone();
  {
    await using b = record(store);
    await b.synced();
    assert.equal(b.last()?.zones[0]?.serial, 1);
  }
  await store.close();
});

Deno.test("startSnapshotBuilder publishes an empty snapshot for an empty store", async () => {
  const store = createMemoryStore();
  {
    await using b = record(store);
    await b.synced();
    assert.deepEqual(
      { zones: b.last()?.zones, forwardZones: b.last()?.forwardZones },
      { zones: [], forwardZones: [] },
    );
  }
  await store.close();
});

Deno.test("startSnapshotBuilder copies the data-plane settings into every snapshot", async () => {
  const store = createMemoryStore();
  const { config } = loadConfig({
    env: {},
    isRoot: false,
    hostname: "node-a",
    cwd: "/tmp",
  });
  const settings = {
    upstreams: config.upstreams,
    cache: config.cache,
    ratelimit: config.ratelimit,
  };
  const builder = startSnapshotBuilder({
    store,
    nodeName: "node-a",
    version: "0.0.0-test",
    logger: memoryLogger(),
    debounceMs: 20,
    settings,
    onSnapshot: () => {},
  });
  try {
    await finishWithin("The first snapshot", builder.synced);
    assert.deepEqual(builder.current()?.settings, settings);
  } finally {
    await finishWithin("The snapshot builder's stop", builder.stop());
    await store.close();
  }
});

Deno.test("startSnapshotBuilder leaves disabled endpoints out", async () => {
  const store = await storeWithZone();
  await store.apply(
    recordSet("apps", "old", "example-org", [
      { ...a("old.example.org", "192.0.2.9"), kudurru: { disabled: true } },
      a("new.example.org", "192.0.2.10"),
    ]),
    API,
  );
  {
    await using b = record(store);
    await b.synced();
    assert.deepEqual(recordsOf(b.last(), "example.org."), [
      "new.example.org. 300 IN A 192.0.2.10",
      "www.example.org. 300 IN A 192.0.2.1",
    ]);
  }
  await store.close();
});

Deno.test("startSnapshotBuilder lists forward zones", async () => {
  const store = createMemoryStore();
  await store.apply(forwardZone("corp", "corp.example.", "corp-dns"), API);
  {
    await using b = record(store);
    await b.synced();
    assert.deepEqual(b.last()?.forwardZones, [
      {
        name: "corp.example.",
        objectName: "corp",
        upstreamGroup: "corp-dns",
        access: { queryAccess: "allow", zoneTransfer: "deny" },
      },
    ]);
    assert.deepEqual(b.last()?.zones, []);
  }
  await store.close();
});

Deno.test("startSnapshotBuilder publishes new settings and TSIG keys with unchanged zones", async () => {
  const store = await storeWithZone();
  {
    await using b = record(store);
    await b.synced();
    const before = b.snapshots.length;
    const settings = {} as DataPlaneSettings;
    b.builder.setSettings(settings);
    await waitFor(
      "a snapshot with the settings",
      () => b.last()?.settings === settings,
    );
    const keys = [{
      ref: "xfr",
      name: "xfr.example.",
      algorithm: "hmac-sha256" as const,
      secret: new Uint8Array(32),
    }];
    b.builder.setTsigKeys(keys);
    await waitFor(
      "a snapshot with the keys",
      () => b.last()?.tsigKeys === keys,
    );
    assert.equal(b.snapshots.length, before + 2);
    b.builder.setTsigKeys([]);
    await waitFor(
      "a snapshot without keys",
      () => b.snapshots.length === before + 3,
    );
    assert.equal(b.last()?.tsigKeys, undefined);
    assert.equal(b.last()?.zones[0], b.snapshots[before]!.zones[0]);
  }
  await store.close();
});

Deno.test("startSnapshotBuilder reflects a stamped serial", async () => {
  const store = await storeWithZone();
  {
    await using b = record(store);
    await b.synced();
    const zone = await store.get({
      kind: "DNSZone",
      namespace: "",
      name: "example-org",
    }) as DNSZone;
    await store.updateStatus({ ...zone, status: { serial: 1_800_000_123 } });
    const s = await waitFor(
      "a snapshot with the stamped serial",
      () => b.last()?.zones[0]?.serial === 1_800_000_123 && b.last(),
    );
    const soa = s.zones[0]?.rrsets.find((r) => r.type === 6)?.rdata[0];
    assert.equal(soa?.type === "SOA" ? soa.serial : undefined, 1_800_000_123);
    assert.equal(s.version, 2);
    // Only the SOA changed: the zone was not built again for its serial
    // (~1.5 s for 100,000 records), every other RRset is the one it was.
    const before = b.snapshots[0]!.zones[0]!.rrsets;
    const after = s.zones[0]!.rrsets;
    assert.equal(after.length, before.length);
    assert.deepEqual(
      after.flatMap((r, i) => r === before[i] ? [] : [r.type]),
      [6],
    );
  }
  await store.close();
});

Deno.test("startSnapshotBuilder turns a burst of changes into one snapshot", async () => {
  const store = await storeWithZone();
  {
    await using b = record(store, 50);
    await b.synced();
    for (let i = 1; i <= 5; i++) {
      await store.apply(
        recordSet("apps", `host-${i}`, "example-org", [
          a(`host-${i}.example.org`, `192.0.2.${10 + i}`),
        ]),
        API,
      );
    }
    await waitFor("a second snapshot", () => b.snapshots.length >= 2);
    await sleep(120);
    assert.equal(b.snapshots.length, 2);
    assert.equal(recordsOf(b.last(), "example.org.").length, 6);
  }
  await store.close();
});

Deno.test("startSnapshotBuilder rebuilds only the zones that changed", async () => {
  const store = await storeWithZone();
  await store.apply(primaryZone("example-net", "example.net."), API);
  {
    await using b = record(store);
    await b.synced();
    const before = b.last()!;
    await store.apply(
      recordSet("apps", "mail", "example-net", [
        a("mail.example.net", "192.0.2.25"),
      ]),
      API,
    );
    const after = await waitFor("a second snapshot", () => b.snapshots[1]);
    const org = (s: Snapshot) => s.zones.find((z) => z.name === "example.org.");
    const net = (s: Snapshot) => s.zones.find((z) => z.name === "example.net.");
    assert.ok(org(before) !== undefined && org(after) === org(before));
    assert.notEqual(net(after), net(before));
  }
  await store.close();
});

Deno.test("startSnapshotBuilder does not republish after a status-only change of a record set", async () => {
  const store = await storeWithZone();
  {
    await using b = record(store);
    await b.synced();
    const rs = await store.get({
      kind: "DNSRecordSet",
      namespace: "apps",
      name: "web",
    });
    await store.updateStatus({ ...rs, status: { observedGeneration: 1 } });
    await sleep(80);
    assert.equal(b.snapshots.length, 1);
  }
  await store.close();
});

Deno.test("startSnapshotBuilder drops a deleted zone", async () => {
  const store = await storeWithZone();
  {
    await using b = record(store);
    await b.synced();
    await store.delete({ kind: "DNSZone", namespace: "", name: "example-org" });
    const s = await waitFor("a second snapshot", () => b.snapshots[1]);
    assert.deepEqual(s.zones, []);
  }
  await store.close();
});

Deno.test("startSnapshotBuilder never writes to the store", async () => {
  const store = await storeWithZone();
  const writes = store.audit.length;
  {
    await using b = record(store);
    await b.synced();
    await store.apply(
      recordSet("apps", "api", "example-org", [
        a("api.example.org", "192.0.2.2"),
      ]),
      API,
    );
    await waitFor("a second snapshot", () => b.snapshots[1]);
  }
  assert.equal(store.audit.length, writes + 1);
  await store.close();
});

Deno.test("startSnapshotBuilder watches again after its watches end", async () => {
  const store = await storeWithZone();
  const breakable = breakableStore(store);
  {
    await using b = record(breakable.store);
    await b.synced();
    breakable.closeWatches();
    await store.apply(
      recordSet("apps", "api", "example-org", [
        a("api.example.org", "192.0.2.2"),
      ]),
      API,
    );
    const s = await waitFor(
      "a snapshot with the record written during the outage",
      () => recordsOf(b.last(), "example.org.").length === 2 && b.last(),
    );
    assert.ok(breakable.watches >= 4);
    assert.equal(s.zones.length, 1);
  }
  await store.close();
});

Deno.test("startSnapshotBuilder lists again after ExpiredError and logs the outage once", async () => {
  const store = await storeWithZone();
  const breakable = breakableStore(store);
  {
    await using b = record(breakable.store);
    await b.synced();
    breakable.failNextWatches(6, new ExpiredError("3"));
    breakable.closeWatches();
    await store.apply(
      recordSet("apps", "api", "example-org", [
        a("api.example.org", "192.0.2.2"),
      ]),
      API,
    );
    await waitFor(
      "a snapshot with the new record",
      () => recordsOf(b.last(), "example.org.").length === 2,
    );
    const warnings = b.logger.lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.level === "warn" && l.kind === "DNSRecordSet");
    assert.equal(warnings.length, 1);
  }
  await store.close();
});

Deno.test("startSnapshotBuilder publishes nothing after stop", async () => {
  const store = await storeWithZone();
  const b = record(store, 10);
  await b.synced();
  await b.stop();
  await store.apply(
    recordSet("apps", "api", "example-org", [
      a("api.example.org", "192.0.2.2"),
    ]),
    API,
  );
  await sleep(40);
  assert.equal(b.snapshots.length, 1);
  await store.close();
});

Deno.test("startSnapshotBuilder rebuilds when an endpoint's expiresAt lapses", async () => {
  const store = await storeWithZone();
  const expiresAt = new Date(Date.now() + 150).toISOString();
  await store.apply(
    recordSet("apps", "temp", "example-org", [
      { ...a("temp.example.org", "192.0.2.7"), kudurru: { expiresAt } },
    ]),
    API,
  );
  {
    await using b = record(store, 10, () => new Date());
    await b.synced();
    assert.equal(recordsOf(b.last(), "example.org.").length, 2);
    await waitFor(
      "the expired record to leave the snapshot",
      () => recordsOf(b.last(), "example.org.").length === 1,
    );
    assert.deepEqual(recordsOf(b.last(), "example.org."), [
      "www.example.org. 300 IN A 192.0.2.1",
    ]);
  }
  await store.close();
});

Deno.test("startSnapshotBuilder carries the blocking part and publishes when it changes", async () => {
  const store = await storeWithZone();
  const blocking = {
    enabled: true,
    response: { mode: "zeroIP" as const, customIPs: [], ttl: 600 },
    lists: [],
    groups: [],
    policies: [],
  };
  let part: typeof blocking | undefined = blocking;
  const snapshots: Snapshot[] = [];
  const builder = startSnapshotBuilder({
    store,
    nodeName: "node-a",
    version: "0.0.0-test",
    logger: memoryLogger(),
    debounceMs: 5,
    onSnapshot: (s) => snapshots.push(s),
    blocking: { current: () => part },
  });
  try {
    await finishWithin("The first snapshot", builder.synced);
    assert.equal(snapshots[0]?.blocking, blocking);
    builder.refresh();
    await sleep(30);
    assert.equal(snapshots.length, 1, "the same part publishes nothing new");
    part = { ...blocking, enabled: false };
    builder.refresh();
    await waitFor("a second snapshot", () => snapshots.length === 2);
    assert.equal(snapshots[1]?.blocking?.enabled, false);
    assert.equal(
      snapshots[1]?.zones[0],
      snapshots[0]?.zones[0],
      "zones reused",
    );
  } finally {
    await finishWithin("The snapshot builder's stop", builder.stop());
  }
});

Deno.test("startSnapshotBuilder puts the oldest of two DNSZone objects for one name first (it is served)", async () => {
  const store = await storeWithZone();
  await sleep(5);
  // Younger, and first by name: order of creation decides, not of names.
  await store.apply(primaryZone("aaa-copy", "example.org."), API);
  {
    await using b = record(store);
    await b.synced();
    const claimants = b.last()!.zones.filter((z) => z.name === "example.org.");
    assert.deepEqual(claimants.map((z) => z.objectName), [
      "example-org",
      "aaa-copy",
    ]);
  }
  await store.close();
});

Deno.test("debounceWindow grows with slow rebuilds, within bounds", () => {
  assert.equal(debounceWindow(100, 3), 100);
  assert.equal(debounceWindow(100, 1_500), 3_000);
  assert.equal(debounceWindow(100, 60_000), 5_000);
  assert.equal(debounceWindow(20, 0), 20);
});
