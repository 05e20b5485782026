import assert from "node:assert/strict";
import { snapshotOf } from "../testing/fixtures.ts";
import { zoneFromText } from "../testing/zone_text.ts";
import type { ZoneContent } from "../zone/types.ts";
import { SnapshotReceiver, SnapshotSender } from "./snapshot_post.ts";

function zone(name: string, address = "192.0.2.1"): ZoneContent {
  return zoneFromText(name, [
    `${name} 60 IN SOA ns1.${name} h.${name} 1 3600 900 1209600 30`,
    `www.${name} 60 IN A ${address}`,
  ]);
}

/** Posts through a structured clone, as postMessage does. */
function deliver(
  sender: SnapshotSender,
  receiver: SnapshotReceiver,
  zones: ZoneContent[],
  version: number,
) {
  const posted = structuredClone(sender.post(snapshotOf(zones, [], version)));
  return { posted, received: receiver.receive(posted) };
}

Deno.test("snapshots are posted without the zones the worker holds", () => {
  const sender = new SnapshotSender();
  const receiver = new SnapshotReceiver();
  const a = zone("a.test."), b = zone("b.test.");
  const first = deliver(sender, receiver, [a, b], 1);
  assert.deepEqual(first.received.zones, [a, b]);

  // a is the same object, b changed, c is new.
  const b2 = zone("b.test.", "192.0.2.2"), c = zone("c.test.");
  const second = deliver(sender, receiver, [a, b2, c], 2);
  assert.deepEqual(second.posted.zones[0], { kept: "a.test." });
  assert.deepEqual(second.posted.zones.slice(1), [b2, c]);
  // The worker's a is the object it received first: its index is reused.
  assert.equal(second.received.zones[0], first.received.zones[0]);
  assert.deepEqual(second.received.zones, [a, b2, c]);
  assert.equal(second.received.version, 2);

  // A zone left out and brought back is posted in full again.
  deliver(sender, receiver, [b2], 3);
  const fourth = deliver(sender, receiver, [a, b2], 4);
  assert.deepEqual(fourth.posted.zones, [a, { kept: "b.test." }]);
  assert.deepEqual(fourth.received.zones, [a, b2]);
});

Deno.test("a second zone content of one name is always posted in full", () => {
  const sender = new SnapshotSender();
  const receiver = new SnapshotReceiver();
  const older = zone("a.test."), newer = zone("a.test.", "192.0.2.9");
  deliver(sender, receiver, [older, newer], 1);
  const again = deliver(sender, receiver, [older, newer], 2);
  assert.deepEqual(again.posted.zones, [{ kept: "a.test." }, newer]);
  assert.deepEqual(again.received.zones, [older, newer]);
});

Deno.test("a new worker's sender posts everything again", () => {
  const a = zone("a.test.");
  const sender = new SnapshotSender();
  deliver(sender, new SnapshotReceiver(), [a], 1);
  // The worker was restarted: a new receiver, and a new sender with it.
  const fresh = deliver(new SnapshotSender(), new SnapshotReceiver(), [a], 2);
  assert.deepEqual(fresh.received.zones, [a]);
  // A receiver told to keep what it never got says so.
  assert.throws(
    () => new SnapshotReceiver().receive(sender.post(snapshotOf([a], [], 3))),
    /names zone a\.test\. as kept, but it was never received/,
  );
});
