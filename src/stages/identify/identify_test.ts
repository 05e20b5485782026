import assert from "node:assert/strict";
import type { Request } from "../../pipeline/request.ts";
import { requestFor, snapshotOf } from "../../testing/fixtures.ts";
import { createIdentifyStage } from "./identify.ts";
import { ask, blockingWith, DROP, GROUPS, policy } from "./test_fixtures.ts";

Deno.test("identify puts every client in the default group without blocking data", async () => {
  let seen: Request | undefined;
  await createIdentifyStage().serve(requestFor("example.org. A"), (req) => {
    seen = req;
    return DROP;
  });
  assert.deepEqual(seen?.groups, ["default"]);
  assert.equal(seen?.policy, undefined);
});

Deno.test("identify: groups and the decision travel on the request", async (t) => {
  const stage = createIdentifyStage();
  const blocking = blockingWith();
  const cases: [
    address: string,
    clientId: string | undefined,
    groups: string[],
    lists: string[],
  ][] = [
    ["203.0.113.1", undefined, ["kudurru/default"], ["l/ads"]],
    ["192.168.1.9", undefined, ["home/kids"], ["l/adult"]],
    ["203.0.113.1", "phone", ["home/phone"], ["l/social"]],
    ["192.168.1.9", "phone", ["home/kids", "home/phone"], [
      "l/adult",
      "l/social",
    ]],
  ];
  for (const [address, clientId, groups, lists] of cases) {
    await t.step(`${address} ${clientId ?? "-"}`, () => {
      const req = ask(stage, blocking, address, clientId);
      assert.deepEqual(req.groups, groups);
      assert.deepEqual(req.policy?.blockLists, lists);
    });
  }
});

Deno.test("identify: no matching group means no groups and an empty decision", () => {
  const blocking = blockingWith(GROUPS.slice(1));
  const req = ask(createIdentifyStage(), blocking, "203.0.113.1");
  assert.deepEqual(req.groups, []);
  assert.deepEqual(req.policy?.policies, []);
  assert.deepEqual(req.policy?.blockLists, []);
  assert.equal(req.policy?.response, blocking.response);
});

Deno.test("identify: a repeat client is served from the memo until the snapshot changes", () => {
  let clock = Date.parse("2025-01-06T12:00:00Z");
  const stage = createIdentifyStage({ now: () => clock });
  const first = blockingWith();
  const a = ask(stage, first, "192.168.1.9");
  clock += 86_400_000; // no schedules: time alone changes nothing
  const b = ask(stage, first, "192.168.1.9");
  assert.equal(b.policy, a.policy);
  assert.equal(b.groups, a.groups);
  assert.ok(Object.isFrozen(b.groups));

  const second = blockingWith(GROUPS, [
    policy("home/kids", { groups: ["home/kids"], blockLists: ["l/games"] }),
  ]);
  const c = ask(stage, second, "192.168.1.9");
  assert.deepEqual(c.policy?.blockLists, ["l/games"]);
  // With and without a client ID are different clients.
  assert.deepEqual(ask(stage, second, "192.168.1.9", "phone").groups, [
    "home/kids",
    "home/phone",
  ]);
});

Deno.test("identify: with schedules the memo expires at the next minute boundary", () => {
  let clock = Date.parse("2025-01-06T11:59:30Z");
  const stage = createIdentifyStage({ now: () => clock });
  const blocking = blockingWith(GROUPS, [
    policy("home/lunch", {
      groups: ["home/kids"],
      blockLists: ["l/games"],
      schedule: { start: "12:00", end: "13:00", tz: "UTC" },
    }),
  ]);
  const before = ask(stage, blocking, "192.168.1.9");
  assert.deepEqual(before.policy?.blockLists, []);
  clock = Date.parse("2025-01-06T11:59:59.999Z");
  assert.equal(ask(stage, blocking, "192.168.1.9").policy, before.policy);
  clock = Date.parse("2025-01-06T12:00:00Z");
  const at = ask(stage, blocking, "192.168.1.9");
  assert.deepEqual(at.policy?.blockLists, ["l/games"]);
  clock = Date.parse("2025-01-06T13:00:00Z");
  assert.deepEqual(ask(stage, blocking, "192.168.1.9").policy?.blockLists, []);
});

Deno.test("identify: without a clock, a query is judged at its arrival", () => {
  const stage = createIdentifyStage();
  const blocking = blockingWith(GROUPS, [
    policy("home/night", {
      groups: ["home/kids"],
      blockLists: ["l/games"],
      schedule: { start: "22:00", end: "06:00", tz: "UTC" },
    }),
  ]);
  const snapshot = { ...snapshotOf([]), blocking };
  const at = (iso: string): Request => {
    const req: Request = {
      ...requestFor("example.org. A", { snapshot }),
      client: { address: "192.168.1.9", port: 40000, transport: "udp" },
      received: Date.parse(iso),
    };
    stage.serve(req, () => DROP);
    return req;
  };
  assert.deepEqual(at("2025-01-06T21:59:59Z").policy?.blockLists, []);
  assert.deepEqual(at("2025-01-06T22:00:00Z").policy?.blockLists, ["l/games"]);
  assert.deepEqual(at("2025-01-07T05:59:00Z").policy?.blockLists, ["l/games"]);
  assert.deepEqual(at("2025-01-07T06:00:00Z").policy?.blockLists, []);
});
