import assert from "node:assert/strict";
import type { DNSRecordSet } from "../api/v1alpha1/dnsrecordset.ts";
import type { DNSZone } from "../api/v1alpha1/dnszone.ts";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { memoryLogger } from "../log/logger.ts";
import {
  createMemoryStore,
  type MemoryStore,
} from "../store/memory/memory_store.ts";
import type { Elector, Store } from "../store/store.ts";
import {
  a,
  breakableStore,
  fakeClock,
  finishWithin,
  forwardZone,
  primaryZone,
  recordSet,
  sleep,
  waitFor,
} from "../snapshot/testdata/zone_objects.ts";
import { startZoneController } from "./zone_controller.ts";

const API = { manager: "api" };
const NOW = 1_800_000_000;

// Leaked loops fail the test that leaked them; left running, they would keep
// the event loop alive and turn a later never-settling await into a silent
// hang (Deno 2.9 leaves these sanitizers off by default).
Deno.test.sanitizer({ ops: true, resources: true });

function control(store: Store, clock = fakeClock(NOW)) {
  const controller = startZoneController({
    store,
    logger: memoryLogger(),
    now: clock.now,
    debounceMs: 5,
  });
  return {
    clock,
    async [Symbol.asyncDispose]() {
      await finishWithin("The zone controller's stop", controller.stop());
    },
    stop: () => finishWithin("The zone controller's stop", controller.stop()),
  };
}

async function zone(store: Store, name = "example-org"): Promise<DNSZone> {
  return await store.get({ kind: "DNSZone", namespace: "", name }) as DNSZone;
}

async function rs(
  store: Store,
  name: string,
  namespace = "apps",
): Promise<DNSRecordSet> {
  return await store.get({
    kind: "DNSRecordSet",
    namespace,
    name,
  }) as DNSRecordSet;
}

function condition(obj: KObject, type: string) {
  const status = obj.status as
    | { conditions?: { type: string }[] }
    | undefined;
  return status?.conditions?.find((c) => c.type === type) as
    | Record<string, unknown>
    | undefined;
}

function statusWrites(store: MemoryStore): number {
  return store.audit.filter((row) => row.action === "status").length;
}

/** Waits until the controller has written nothing for a while; returns the write count. */
async function settle(store: MemoryStore): Promise<number> {
  const deadline = Date.now() + 3000;
  let last = -1;
  while (statusWrites(store) !== last) {
    if (Date.now() > deadline) {
      throw new Error(`The controller kept writing: ${last} status writes`);
    }
    last = statusWrites(store);
    await sleep(60);
  }
  return last;
}

async function storeWithZone(): Promise<MemoryStore> {
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

async function serialIs(store: Store, want: number): Promise<void> {
  await waitFor(
    `serial ${want}`,
    async () => (await zone(store)).status?.serial === want,
  );
}

Deno.test("startZoneController stamps unix now as the first serial", async () => {
  const store = await storeWithZone();
  {
    await using _c = control(store);
    await serialIs(store, NOW);
    const status = (await zone(store)).status;
    assert.equal(status?.recordCount, 1);
    assert.equal(status?.observedGeneration, 1);
    assert.match(status?.contentHash ?? "", /^[0-9a-f]{64}$/);
  }
  await store.close();
});

Deno.test("startZoneController bumps the serial to max(prev + 1, now) on content changes", async () => {
  const store = await storeWithZone();
  {
    await using c = control(store);
    await serialIs(store, NOW);
    for (const [i, want] of [[2, NOW + 1], [3, NOW + 2]] as const) {
      await store.apply(
        recordSet("apps", `host-${i}`, "example-org", [
          a(`h${i}.example.org`, "192.0.2.9"),
        ]),
        API,
      );
      await serialIs(store, want);
    }
    c.clock.advance(100);
    await store.apply(
      recordSet("apps", "host-4", "example-org", [
        a("h4.example.org", "192.0.2.9"),
      ]),
      API,
    );
    await serialIs(store, NOW + 100);
  }
  await store.close();
});

Deno.test("startZoneController re-stamps the serial when an endpoint's expiresAt lapses", async () => {
  const store = await storeWithZone();
  // 200 ms after the controller's (fake) now: its expiry timer is real.
  const expiresAt = new Date(NOW * 1000 + 200).toISOString();
  await store.apply(
    recordSet("apps", "temp", "example-org", [
      { ...a("temp.example.org", "192.0.2.7"), kudurru: { expiresAt } },
    ]),
    API,
  );
  {
    await using c = control(store);
    await serialIs(store, NOW);
    await settle(store); // from here on only the expiry timer starts a pass
    assert.equal((await zone(store)).status?.recordCount, 2);
    const hash = (await zone(store)).status?.contentHash;
    c.clock.advance(1); // the timer finds the endpoint past its expiresAt
    await serialIs(store, NOW + 1);
    const status = (await zone(store)).status;
    assert.equal(status?.recordCount, 1);
    assert.notEqual(status?.contentHash, hash);
  }
  await store.close();
});

Deno.test("startZoneController does not bump the serial for a label-only change", async () => {
  const store = await storeWithZone();
  {
    await using c = control(store);
    await serialIs(store, NOW);
    await settle(store);
    c.clock.advance(10);
    await store.apply(
      recordSet("apps", "web", "example-org", [
        a("www.example.org", "192.0.2.1"),
      ], {
        team: "web",
      }),
      API,
    );
    await settle(store);
    assert.equal((await zone(store)).status?.serial, NOW);
  }
  await store.close();
});

Deno.test("startZoneController moves observedGeneration without bumping the serial when content is unchanged", async () => {
  const store = await storeWithZone();
  {
    await using c = control(store);
    await serialIs(store, NOW);
    c.clock.advance(10);
    const changed = primaryZone("example-org", "example.org.");
    (changed.spec as { policy?: unknown }).policy = {
      queryAccess: "allowOnlyPrivate",
    };
    await store.apply(changed, API);
    await waitFor(
      "observedGeneration 2",
      async () => (await zone(store)).status?.observedGeneration === 2,
    );
    const status = (await zone(store)).status;
    assert.equal(status?.serial, NOW);
    assert.equal(condition(await zone(store), "Ready")?.observedGeneration, 2);
  }
  await store.close();
});

Deno.test("startZoneController sets Ready on primary and forward zones", async (t) => {
  const store = await storeWithZone();
  await store.apply(forwardZone("corp", "corp.example.", "corp-dns"), API);
  {
    await using _c = control(store);
    await serialIs(store, NOW);
    await t.step("primary: Serving", async () => {
      const ready = condition(await zone(store), "Ready");
      assert.deepEqual(
        [ready?.status, ready?.reason, ready?.lastTransitionTime],
        ["True", "Serving", new Date(NOW * 1000).toISOString()],
      );
    });
    await t.step("forward: Forwarding", async () => {
      const corp = await waitFor("the forward zone's status", async () => {
        const z = await zone(store, "corp");
        return z.status?.observedGeneration === 1 && z;
      });
      const ready = condition(corp, "Ready");
      assert.deepEqual([ready?.status, ready?.reason], ["True", "Forwarding"]);
      assert.equal(corp.status?.serial, undefined);
    });
  }
  await store.close();
});

Deno.test("startZoneController marks a served record set Ready", async () => {
  const store = await storeWithZone();
  {
    await using _c = control(store);
    const web = await waitFor("web's status", async () => {
      const r = await rs(store, "web");
      return r.status?.observedGeneration === 1 && r;
    });
    const ready = condition(web, "Ready");
    assert.deepEqual([ready?.status, ready?.reason], ["True", "Serving"]);
  }
  await store.close();
});

/** Waits for a condition of `type` on record set `name` to be (or not be) there. */
async function conditionOf(
  store: Store,
  name: string,
  type: string,
  present: boolean,
) {
  return await waitFor(
    `${type} on ${name} to be ${present ? "set" : "gone"}`,
    async () => {
      const c = condition(await rs(store, name), type);
      return present ? c : c === undefined && ({} as Record<string, unknown>);
    },
  );
}

Deno.test("startZoneController reports problems on record sets and clears them", async (t) => {
  const rows: {
    name: string;
    type: string;
    add: KObject;
    fix: (store: Store) => Promise<unknown>;
  }[] = [
    {
      name: "a duplicate on the later object",
      type: "Duplicated",
      add: recordSet("apps", "web2", "example-org", [
        a("www.example.org", "192.0.2.2"),
      ]),
      fix: (store) =>
        store.delete({ kind: "DNSRecordSet", namespace: "apps", name: "web" }),
    },
    {
      name: "a name outside the zone",
      type: "OutsideZone",
      add: recordSet("apps", "web2", "example-org", [
        a("www.example.net", "192.0.2.2"),
      ]),
      fix: (store) =>
        store.apply(
          recordSet("apps", "web2", "example-org", [
            a("www2.example.org", "192.0.2.2"),
          ]),
          API,
        ),
    },
    {
      name: "a CNAME beside other data",
      type: "CNAMEConflict",
      add: recordSet("apps", "web2", "example-org", [{
        dnsName: "www.example.org",
        recordType: "CNAME",
        targets: ["elsewhere.example.net."],
      }]),
      fix: (store) =>
        store.delete({ kind: "DNSRecordSet", namespace: "apps", name: "web" }),
    },
  ];
  for (const row of rows) {
    await t.step(row.name, async () => {
      const store = await storeWithZone();
      {
        await using _c = control(store);
        await serialIs(store, NOW);
        await store.apply(row.add, API);
        const problem = await conditionOf(store, "web2", row.type, true);
        assert.equal(problem.status, "True");
        assert.match(String(problem.message), /^endpoints\[0\]: /);
        const ready = condition(await rs(store, "web2"), "Ready");
        assert.deepEqual([ready?.status, ready?.reason], ["False", row.type]);
        await row.fix(store);
        await conditionOf(store, "web2", row.type, false);
        await waitFor(
          "web2 Ready",
          async () =>
            condition(await rs(store, "web2"), "Ready")?.status === "True",
        );
      }
      await store.close();
    });
  }
});

Deno.test("startZoneController names the duplicate's owner in the message", async () => {
  const store = await storeWithZone();
  {
    await using _c = control(store);
    await store.apply(
      recordSet("apps", "web2", "example-org", [
        a("www.example.org", "192.0.2.2"),
      ]),
      API,
    );
    const dup = await conditionOf(store, "web2", "Duplicated", true);
    assert.match(String(dup.message), /apps\/web/);
  }
  await store.close();
});

Deno.test("startZoneController reports ZoneNotFound until the zone exists", async () => {
  const store = createMemoryStore();
  await store.apply(
    recordSet("apps", "web", "example-org", [
      a("www.example.org", "192.0.2.1"),
    ]),
    API,
  );
  {
    await using _c = control(store);
    await waitFor(
      "ZoneNotFound",
      async () =>
        condition(await rs(store, "web"), "Ready")?.reason === "ZoneNotFound",
    );
    assert.equal(condition(await rs(store, "web"), "Ready")?.status, "False");
    await store.apply(primaryZone("example-org", "example.org."), API);
    await waitFor(
      "Ready True",
      async () => condition(await rs(store, "web"), "Ready")?.status === "True",
    );
  }
  await store.close();
});

Deno.test("startZoneController writes each status once and then nothing", async () => {
  const store = await storeWithZone();
  await store.apply(forwardZone("corp", "corp.example.", "corp-dns"), API);
  {
    await using _c = control(store);
    await serialIs(store, NOW);
    assert.equal(await settle(store), 3); // two zones and the record set
    const before = store.audit.length;
    await store.apply(
      recordSet("apps", "web", "example-org", [
        a("www.example.org", "192.0.2.1"),
      ], {
        team: "web",
      }),
      API,
    );
    await sleep(100);
    assert.equal(store.audit.length, before + 1); // the label change itself
  }
  await store.close();
});

Deno.test("startZoneController moves lastTransitionTime only when Ready flips", async () => {
  const store = await storeWithZone();
  {
    await using c = control(store);
    const first = String(
      (await conditionOf(store, "web", "Ready", true)).lastTransitionTime,
    );
    c.clock.advance(60);
    await store.apply(
      recordSet("apps", "web", "example-org", [
        a("www.example.org", "192.0.2.5"),
      ]),
      API,
    );
    await waitFor(
      "observedGeneration 2",
      async () => (await rs(store, "web")).status?.observedGeneration === 2,
    );
    assert.equal(
      condition(await rs(store, "web"), "Ready")?.lastTransitionTime,
      first,
    );
    await store.delete({ kind: "DNSZone", namespace: "", name: "example-org" });
    await waitFor(
      "ZoneNotFound",
      async () =>
        condition(await rs(store, "web"), "Ready")?.reason === "ZoneNotFound",
    );
    assert.equal(
      condition(await rs(store, "web"), "Ready")?.lastTransitionTime,
      new Date((NOW + 60) * 1000).toISOString(),
    );
  }
  await store.close();
});

Deno.test("startZoneController writes nothing after stop", async () => {
  const store = await storeWithZone();
  const c = control(store);
  await serialIs(store, NOW);
  const writes = await settle(store);
  await c.stop();
  await store.apply(
    recordSet("apps", "api", "example-org", [
      a("api.example.org", "192.0.2.2"),
    ]),
    API,
  );
  await sleep(50);
  assert.equal(statusWrites(store), writes);
  await store.close();
});

/** An elector the test hands leadership to and takes it from. */
function handOverElector() {
  let callbacks: { onStarted: () => void; onStopped: () => void } | undefined;
  let leading = false;
  const elector: Elector = {
    run(signal, onStarted, onStopped) {
      callbacks = { onStarted, onStopped };
      return new Promise((resolve) =>
        signal.addEventListener("abort", () => {
          if (leading) onStopped();
          leading = false;
          resolve();
        }, { once: true })
      );
    },
    isLeader: () => leading,
    leader: () => (leading ? "node-a" : "node-b"),
  };
  return {
    elector,
    grant() {
      leading = true;
      callbacks?.onStarted();
    },
    revoke() {
      leading = false;
      callbacks?.onStopped();
    },
  };
}

Deno.test("startZoneController writes only while it leads the controller election", async () => {
  const store = await storeWithZone();
  const election = handOverElector();
  const names: string[] = [];
  const led: Store = {
    ...store,
    elector: (name) => {
      names.push(name);
      return election.elector;
    },
  };
  {
    await using _c = control(led);
    assert.deepEqual(names, ["controller"]);
    await sleep(50);
    assert.equal(statusWrites(store), 0);
    election.grant();
    await serialIs(store, NOW);
    const writes = await settle(store);
    election.revoke();
    await store.apply(
      recordSet("apps", "api", "example-org", [
        a("api.example.org", "192.0.2.2"),
      ]),
      API,
    );
    await sleep(50);
    assert.equal(statusWrites(store), writes);
  }
  await store.close();
});

Deno.test("startZoneController starts nothing when leadership arrives after stop", async () => {
  const store = await storeWithZone();
  const election = handOverElector();
  const watched = breakableStore(store);
  const led: Store = { ...watched.store, elector: () => election.elector };
  const c = control(led);
  await c.stop();
  election.grant(); // an elector that hands over leadership late
  await sleep(50);
  assert.deepEqual([watched.watches, statusWrites(store)], [0, 0]);
  await store.close();
});

/** Waits until the object's Ready condition has `reason`; returns it. */
async function readyWithReason(read: () => Promise<KObject>, reason: string) {
  return await waitFor(`Ready ${reason}`, async () => {
    const ready = condition(await read(), "Ready");
    return ready?.reason === reason && ready;
  });
}

Deno.test("startZoneController marks a second DNSZone for one zone name ZoneConflict, and its record sets", async () => {
  const store = await storeWithZone();
  // Younger and first by name: the older object still serves the zone.
  await sleep(5);
  await store.apply(primaryZone("aaa-copy", "EXAMPLE.org."), API);
  await store.apply(
    recordSet("apps", "copy-web", "aaa-copy", [
      a("only-copy.example.org", "192.0.2.9"),
    ]),
    API,
  );
  {
    await using _c = control(store);
    const copy = await readyWithReason(
      () => zone(store, "aaa-copy"),
      "ZoneConflict",
    );
    assert.equal(copy.status, "False");
    assert.match(String(copy.message), /older DNSZone "example-org"/);
    assert.equal(condition(await zone(store), "Ready")?.status, "True");
    const refused = await readyWithReason(
      () => rs(store, "copy-web"),
      "ZoneConflict",
    );
    assert.equal(refused.status, "False");
  }
  await store.close();
});

Deno.test("startZoneController marks a record set the zone's selector leaves out NotSelected", async () => {
  const store = createMemoryStore();
  await store.apply({
    ...primaryZone("sel", "sel.test."),
    spec: {
      ...(primaryZone("sel", "sel.test.").spec as object),
      recordSetSelector: { namespaces: ["allowed"] },
    },
  } as KObject, API);
  await store.apply(
    recordSet("apps", "outsider", "sel", [a("www.sel.test", "192.0.2.1")]),
    API,
  );
  {
    await using _c = control(store);
    const ready = await readyWithReason(
      () => rs(store, "outsider"),
      "NotSelected",
    );
    assert.equal(ready.status, "False");
  }
  await store.close();
});
