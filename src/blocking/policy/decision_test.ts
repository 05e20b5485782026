import assert from "node:assert/strict";
import type { BlockingSnapshot, PolicyData } from "../blocking_snapshot.ts";
import { decidePolicy } from "./decision.ts";

const policy = (key: string, fields: Partial<PolicyData> = {}): PolicyData => ({
  key,
  priority: 0,
  groups: ["a/kids"],
  blockLists: [],
  allowLists: [],
  allowOnly: false,
  ...fields,
});

const blocking = (policies: PolicyData[]): BlockingSnapshot => ({
  enabled: true,
  response: { mode: "zeroIP", customIPs: [], ttl: 600 },
  lists: [],
  groups: [],
  policies,
});

const NOON = Date.parse("2025-01-06T12:00:00Z"); // a Monday

Deno.test("decidePolicy: which policies apply, in which order", async (t) => {
  const cases: {
    name: string;
    groups: string[];
    policies: PolicyData[];
    want: string[];
  }[] = [
    {
      name: "priority desc, then key asc",
      groups: ["a/kids"],
      policies: [
        policy("a/low", { priority: -5 }),
        policy("a/zeta", { priority: 10 }),
        policy("a/alpha", { priority: 10 }),
        policy("a/mid"),
      ],
      want: ["a/alpha", "a/zeta", "a/mid", "a/low"],
    },
    {
      name: "a policy for other groups does not apply",
      groups: ["a/kids"],
      policies: [policy("a/p"), policy("a/q", { groups: ["a/adults"] })],
      want: ["a/p"],
    },
    {
      name: "any shared group is enough",
      groups: ["a/tv", "a/adults"],
      policies: [policy("a/q", { groups: ["a/kids", "a/adults"] })],
      want: ["a/q"],
    },
    {
      name: "a policy without groups applies to nobody",
      groups: ["a/kids"],
      policies: [policy("a/p", { groups: [] })],
      want: [],
    },
    {
      name: "no groups, no policies",
      groups: [],
      policies: [policy("a/p")],
      want: [],
    },
    {
      name: "an inactive schedule leaves the policy out",
      groups: ["a/kids"],
      policies: [
        policy("a/day", {
          schedule: { start: "08:00", end: "20:00", tz: "UTC" },
        }),
        policy("a/night", {
          schedule: { start: "20:00", end: "08:00", tz: "UTC" },
        }),
      ],
      want: ["a/day"],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const decision = decidePolicy(c.groups, blocking(c.policies), NOON);
      assert.deepEqual(decision.policies, c.want);
    });
  }
});

Deno.test("decidePolicy: lists are unions in priority order, deduplicated", () => {
  const decision = decidePolicy(
    ["a/kids"],
    blocking([
      policy("a/low", {
        blockLists: ["l/ads", "l/porn"],
        allowLists: ["l/ok"],
      }),
      policy("a/high", {
        priority: 5,
        blockLists: ["l/social", "l/ads"],
        allowLists: ["l/school", "l/ok"],
      }),
    ]),
    NOON,
  );
  assert.deepEqual(decision.blockLists, ["l/social", "l/ads", "l/porn"]);
  assert.deepEqual(decision.allowLists, ["l/school", "l/ok"]);
});

Deno.test("decidePolicy: settings come from the highest policy that sets them", () => {
  const decision = decidePolicy(
    ["a/kids"],
    blocking([
      policy("a/base", {
        blockMode: "customIP",
        customIPs: ["192.0.2.1"],
        blockTTL: 60,
        upstreamGroup: "filtered",
        queryLog: false,
      }),
      policy("a/top", { priority: 9, allowOnly: true, blockMode: "nxdomain" }),
      policy("a/mid", { priority: 5, upstreamGroup: "kids" }),
    ]),
    NOON,
  );
  assert.deepEqual(decision, {
    policies: ["a/top", "a/mid", "a/base"],
    blockLists: [],
    allowLists: [],
    allowOnly: true,
    // customIPs travel with the blockMode of a/top, which has none.
    response: { mode: "nxdomain", customIPs: [], ttl: 60 },
    upstreamGroup: "kids",
    queryLog: false,
  });
});

Deno.test("decidePolicy: the highest policy's allowOnly decides", () => {
  const decision = decidePolicy(
    ["a/kids"],
    blocking([
      policy("a/base", { allowOnly: true }),
      policy("a/top", { priority: 1 }),
    ]),
    NOON,
  );
  assert.equal(decision.allowOnly, false);
});

Deno.test("decidePolicy: customIP mode brings its addresses", () => {
  const decision = decidePolicy(
    ["a/kids"],
    blocking([
      policy("a/p", {
        blockMode: "customIP",
        customIPs: ["192.0.2.1", "2001:db8::1"],
      }),
    ]),
    NOON,
  );
  assert.deepEqual(decision.response, {
    mode: "customIP",
    customIPs: ["192.0.2.1", "2001:db8::1"],
    ttl: 600,
  });
});

Deno.test("decidePolicy: customIPs alone change the addresses of the server's mode", () => {
  const snapshot = blocking([
    policy("a/low", { customIPs: ["192.0.2.8"] }),
    policy("a/p", { priority: 1, customIPs: ["192.0.2.9"] }),
  ]);
  snapshot.response = { mode: "customIP", customIPs: ["192.0.2.1"], ttl: 600 };
  const decision = decidePolicy(["a/kids"], snapshot, NOON);
  assert.deepEqual(decision.response, {
    mode: "customIP",
    customIPs: ["192.0.2.9"],
    ttl: 600,
  });
});

Deno.test("decidePolicy: unset parts come from the server's response", () => {
  const snapshot = blocking([policy("a/p")]);
  const decision = decidePolicy(["a/kids"], snapshot, NOON);
  assert.equal(decision.response, snapshot.response);
  assert.equal(decision.queryLog, true);
  assert.equal(decision.upstreamGroup, undefined);
  assert.ok(!("upstreamGroup" in decision));
});

Deno.test("decidePolicy: no applying policy still gives a decision, frozen", () => {
  const snapshot = blocking([policy("a/p", { blockLists: ["l/ads"] })]);
  const decision = decidePolicy(["a/adults"], snapshot, NOON);
  assert.deepEqual(decision, {
    policies: [],
    blockLists: [],
    allowLists: [],
    allowOnly: false,
    response: snapshot.response,
    queryLog: true,
  });
  assert.ok(Object.isFrozen(decision) && Object.isFrozen(decision.blockLists));
});
