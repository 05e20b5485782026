import assert from "node:assert/strict";
import {
  assertIssue,
  type InvalidCase,
  mustValidate,
  withSpec,
} from "./testdata/issue_table.ts";
import type { PolicySpec } from "./policy.ts";

const policy = {
  apiVersion: "kudurru.io/v1alpha1",
  kind: "Policy",
  metadata: { name: "default", namespace: "dns" },
  spec: {},
};
const schedule = (s: Record<string, unknown>) =>
  withSpec(policy, { schedule: { start: "08:00", end: "20:00", ...s } });

Deno.test("Policy accepts valid policies", async (t) => {
  const rows: [string, unknown][] = [
    ["empty spec", policy],
    [
      "everything set",
      withSpec(policy, {
        clientGroupRefs: ["kids"],
        blockListRefs: ["ads"],
        allowListRefs: ["school"],
        allowOnly: true,
        schedule: {
          weekdays: ["sat", "sun"],
          start: "22:00",
          end: "06:30",
          tz: "UTC",
        },
        upstreamGroup: "quad9",
        blockMode: "customIP",
        customIPs: ["192.0.2.1", "2001:db8::1"],
        blockTTL: "10m",
        queryLog: false,
        priority: -5,
        blockedServices: ["tiktok"],
        blockedCategories: ["gambling"],
        allowedServices: ["youtube"],
        safeSearch: true,
      }),
    ],
  ];
  for (const [name, input] of rows) {
    await t.step(name, () => void mustValidate(input));
  }
});

Deno.test("Policy applies defaults and leaves blockMode unset", () => {
  const spec = mustValidate(policy).spec as PolicySpec;
  assert.deepEqual(spec, { allowOnly: false, priority: 0 });
});

Deno.test("Policy rejects invalid policies", async (t) => {
  const cases: InvalidCase[] = [
    {
      name: "customIP without addresses",
      input: withSpec(policy, { blockMode: "customIP" }),
      path: "spec.customIPs",
      message: "must not be empty when blockMode is customIP",
    },
    {
      name: "unknown blockMode",
      input: withSpec(policy, { blockMode: "sinkhole" }),
      path: "spec.blockMode",
      message: "must be one of: zeroIP, nxdomain, customIP, refused",
    },
    {
      name: "unknown weekday",
      input: schedule({ weekdays: ["monday"] }),
      path: "spec.schedule.weekdays[0]",
      message: "must be one of: mon, tue, wed, thu, fri, sat, sun",
    },
    {
      name: "start without leading zero",
      input: schedule({ start: "8:00" }),
      path: "spec.schedule.start",
      message: 'must be a time of day "HH:MM" such as "08:00"',
    },
    {
      name: "end at 24:00",
      input: schedule({ end: "24:00" }),
      path: "spec.schedule.end",
      message: 'must be a time of day "HH:MM" such as "08:00"',
    },
    {
      name: "unknown time zone",
      input: schedule({ tz: "Mars/Olympus" }),
      path: "spec.schedule.tz",
      message: 'must be an IANA time zone such as "Europe/Berlin" or "UTC"',
    },
    {
      name: "schedule without end",
      input: withSpec(policy, { schedule: { start: "08:00" } }),
      path: "spec.schedule.end",
      message: "is required",
    },
    {
      name: "blockTTL not a duration",
      input: withSpec(policy, { blockTTL: "ten minutes" }),
      path: "spec.blockTTL",
      message: 'must be a duration such as "30s", "10m" or "24h"',
    },
    {
      name: "fractional priority",
      input: withSpec(policy, { priority: 1.5 }),
      path: "spec.priority",
      message: "must be an integer",
    },
    {
      name: "reference not an object name",
      input: withSpec(policy, { blockListRefs: ["Ads"] }),
      path: "spec.blockListRefs[0]",
      message: "must be a lowercase DNS-1123 subdomain (a-z, 0-9, '-', '.')",
    },
    {
      name: "allowOnly not a boolean",
      input: withSpec(policy, { allowOnly: "yes" }),
      path: "spec.allowOnly",
      message: "must be true or false",
    },
  ];
  for (const c of cases) await t.step(c.name, () => assertIssue(c));
});
