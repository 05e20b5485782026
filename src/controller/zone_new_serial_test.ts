/**
 * The reconciler tells of each new serial once it is stored, with the
 * zone's content before and after: what the journal and NOTIFY work from.
 */
import assert from "node:assert/strict";
import type { DNSZone } from "../api/v1alpha1/dnszone.ts";
import { memoryLogger } from "../log/logger.ts";
import { createMemoryStore } from "../store/memory/memory_store.ts";
import {
  a,
  fakeClock,
  finishWithin,
  primaryZone,
  recordSet,
  waitFor,
} from "../snapshot/testdata/zone_objects.ts";
import type { ZoneContent } from "../zone/types.ts";
import { startZoneController } from "./zone_controller.ts";

Deno.test.sanitizer({ ops: true, resources: true });

const API = { manager: "api" };

function addresses(content: ZoneContent | undefined): string[] {
  return (content?.rrsets ?? []).filter((r) => r.type === 1)
    .flatMap((r) =>
      r.rdata.map((d) => `${r.name} ${(d as { address: string }).address}`)
    );
}

Deno.test("onNewSerial: each stamped serial once, after its write, with the content before and after", async () => {
  const clock = fakeClock(1_800_000_000);
  const store = createMemoryStore({ now: clock.now });
  const seen: { zone: string; before?: ZoneContent; after: ZoneContent }[] = [];
  const controller = startZoneController({
    store,
    logger: memoryLogger(),
    now: clock.now,
    debounceMs: 5,
    onNewSerial: (zone, before, after) =>
      seen.push({ zone, ...(before && { before }), after }),
  });
  try {
    await store.apply(primaryZone("example-org", "example.org."), API);
    await store.apply(
      recordSet("apps", "www", "example-org", [
        a("www.example.org.", "192.0.2.1"),
      ]),
      API,
    );
    await waitFor("a first serial", () => seen.length > 0);
    const stored = async () =>
      ((await store.get({
        kind: "DNSZone",
        namespace: "",
        name: "example-org",
      })) as DNSZone)
        .status!.serial;
    await waitFor(
      "the record's serial",
      async () =>
        addresses(seen.at(-1)?.after).length === 1 &&
        seen.at(-1)!.after.serial === await stored(),
    );
    const first = seen.length;
    clock.advance(10);
    await store.apply(
      recordSet("apps", "www", "example-org", [
        a("www.example.org.", "192.0.2.2"),
      ]),
      API,
    );
    await waitFor("the change's serial", () => seen.length > first);
    const change = seen.at(-1)!;
    assert.equal(change.zone, "example.org.");
    assert.deepEqual(addresses(change.before), ["www.example.org. 192.0.2.1"]);
    assert.deepEqual(addresses(change.after), ["www.example.org. 192.0.2.2"]);
    assert.equal(change.after.serial, await stored());
    assert.ok(change.after.serial > change.before!.serial);
    const soa = change.after.rrsets.find((r) => r.type === 6)!;
    assert.equal(
      (soa.rdata[0] as { serial: number }).serial,
      change.after.serial,
    );
    // A pass with nothing new tells nothing.
    clock.advance(10);
    await store.apply(primaryZone("example-org", "example.org."), API);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(seen.length, first + 1);
  } finally {
    await finishWithin("the controller's stop", controller.stop());
    await store.close();
  }
});

Deno.test("notifyFailure: a NotifyFailed condition while NOTIFY fails, gone once it does not", async () => {
  const clock = fakeClock(1_800_000_000);
  const store = createMemoryStore({ now: clock.now });
  let failure: string | undefined =
    "NOTIFY got no acknowledgment from 192.0.2.53 port 53 (timeout)";
  const controller = startZoneController({
    store,
    logger: memoryLogger(),
    now: clock.now,
    debounceMs: 5,
    notifyFailure: (zone) => zone === "example.org." ? failure : undefined,
  });
  const condition = async () =>
    ((await store.get({
      kind: "DNSZone",
      namespace: "",
      name: "example-org",
    })) as DNSZone)
      .status?.conditions?.find((c) => c.type === "NotifyFailed");
  try {
    await store.apply(primaryZone("example-org", "example.org."), API);
    await waitFor(
      "the condition",
      async () => (await condition()) !== undefined,
    );
    assert.equal((await condition())!.message, failure);
    failure = undefined;
    controller.refresh();
    await waitFor(
      "the condition to go",
      async () => (await condition()) === undefined,
    );
  } finally {
    await finishWithin("the controller's stop", controller.stop());
    await store.close();
  }
});
