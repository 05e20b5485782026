import assert from "node:assert/strict";
import {
  compileConditional,
  longestConditional,
  normalizeDomain,
  type Route,
  routeQuery,
} from "./routing.ts";
import { requestFrom, upstreamsOf } from "./testdata/upstream_fixtures.ts";
import type { PolicyDecision } from "../../blocking/blocking_snapshot.ts";

function policyWithGroup(upstreamGroup: string): PolicyDecision {
  return {
    policies: ["default/kids"],
    blockLists: [],
    allowLists: [],
    allowOnly: false,
    response: { mode: "zeroIP", customIPs: [], ttl: 600 },
    upstreamGroup,
    queryLog: true,
  };
}

const groups = {
  default: { servers: ["192.0.2.1"] },
  "internal-ad": { servers: ["10.0.0.5"] },
  lab: { servers: ["10.0.0.6"] },
  office: { servers: ["10.0.0.7"] },
  reverse: { servers: ["10.0.0.8"] },
  root: { servers: ["10.0.0.9"] },
};

const upstreams = upstreamsOf({
  groups,
  conditional: {
    "corp.example.": "internal-ad",
    "Lab.Corp.Example": "lab",
    "10.in-addr.arpa": "reverse",
    "8.b.d.0.1.0.0.2.ip6.arpa.": "reverse",
  },
});

interface Case {
  name: string;
  q: string;
  /** The forward zone the authoritative stage matched: [zone, group]. */
  forward?: [string, string];
  /** The upstream group of the client's Policy. */
  policy?: string;
  want: Route;
}

const cases: Case[] = [
  {
    name: "no rule: default",
    q: "www.example.org.",
    want: { group: "default", rule: "default" },
  },
  {
    name: "conditional by suffix",
    q: "host.corp.example.",
    want: {
      group: "internal-ad",
      rule: "conditional",
      suffix: "corp.example.",
    },
  },
  {
    name: "conditional at its own name",
    q: "corp.example.",
    want: {
      group: "internal-ad",
      rule: "conditional",
      suffix: "corp.example.",
    },
  },
  {
    name: "longest conditional wins, key written without dot and in capitals",
    q: "pc.lab.corp.example.",
    want: { group: "lab", rule: "conditional", suffix: "lab.corp.example." },
  },
  {
    name: "question case does not matter",
    q: "PC.LAB.Corp.EXAMPLE.",
    want: { group: "lab", rule: "conditional", suffix: "lab.corp.example." },
  },
  {
    name: "a label boundary is needed: notcorp.example is not corp.example",
    q: "notcorp.example.",
    want: { group: "default", rule: "default" },
  },
  {
    name: "IPv4 reverse zone",
    q: "5.0.0.10.in-addr.arpa.",
    want: { group: "reverse", rule: "conditional", suffix: "10.in-addr.arpa." },
  },
  {
    name: "IPv6 reverse zone",
    q: "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa.",
    want: {
      group: "reverse",
      rule: "conditional",
      suffix: "8.b.d.0.1.0.0.2.ip6.arpa.",
    },
  },
  {
    name: "the root forward zone loses to any conditional entry",
    q: "host.corp.example.",
    forward: [".", "root"],
    want: {
      group: "internal-ad",
      rule: "conditional",
      suffix: "corp.example.",
    },
  },
  {
    name: "the root forward zone beats default",
    q: "www.example.org.",
    forward: [".", "root"],
    want: { group: "root", rule: "forward_zone", suffix: "." },
  },
  {
    name: "a forward zone longer than the conditional entry wins",
    q: "pc.branch.corp.example.",
    forward: ["branch.corp.example.", "office"],
    want: {
      group: "office",
      rule: "forward_zone",
      suffix: "branch.corp.example.",
    },
  },
  {
    name: "a conditional entry longer than the forward zone wins",
    q: "pc.lab.corp.example.",
    forward: ["corp.example.", "office"],
    want: { group: "lab", rule: "conditional", suffix: "lab.corp.example." },
  },
  {
    name: "the forward zone wins a tie with a conditional entry",
    q: "host.corp.example.",
    forward: ["corp.example.", "office"],
    want: { group: "office", rule: "forward_zone", suffix: "corp.example." },
  },
  {
    name: "the policy's group beats default",
    q: "www.example.org.",
    policy: "office",
    want: { group: "office", rule: "policy" },
  },
  {
    name: "the policy's group beats the root forward zone",
    q: "www.example.org.",
    forward: [".", "root"],
    policy: "office",
    want: { group: "office", rule: "policy" },
  },
  {
    name: "a forward zone below the root beats the policy's group",
    q: "pc.branch.corp.example.",
    forward: ["branch.corp.example.", "lab"],
    policy: "office",
    want: {
      group: "lab",
      rule: "forward_zone",
      suffix: "branch.corp.example.",
    },
  },
  {
    name: "a conditional entry beats the policy's group",
    q: "host.corp.example.",
    forward: [".", "root"],
    policy: "office",
    want: {
      group: "internal-ad",
      rule: "conditional",
      suffix: "corp.example.",
    },
  },
];

Deno.test("routeQuery picks the longest suffix across forward zones and conditional entries", async (t) => {
  for (const c of cases) {
    await t.step(c.name, () => {
      const req = requestFrom(`${c.q} A`);
      if (c.forward !== undefined) {
        req.zone = c.forward[0];
        req.upstreamGroup = c.forward[1];
      }
      if (c.policy !== undefined) req.policy = policyWithGroup(c.policy);
      assert.deepEqual(routeQuery(req, upstreams), c.want);
    });
  }
});

Deno.test("routeQuery treats an upstream group without a zone as the root", () => {
  const req = requestFrom("www.example.org. A");
  req.upstreamGroup = "office";
  assert.deepEqual(routeQuery(req, upstreams), {
    group: "office",
    rule: "forward_zone",
    suffix: ".",
  });
});

Deno.test("longestConditional finds a root entry", () => {
  const table = compileConditional({ ".": "root" });
  assert.deepEqual(longestConditional("www.example.org.", table), {
    group: "root",
    rule: "conditional",
    suffix: ".",
  });
});

Deno.test("longestConditional does not split at escaped dots", () => {
  const table = compileConditional({ "b.example.": "lab" });
  assert.equal(longestConditional("a\\.b.example.", table), undefined);
});

Deno.test("normalizeDomain spells a domain one way", async (t) => {
  const cases: [string, string][] = [
    ["corp.example", "corp.example."],
    ["Corp.Example.", "corp.example."],
    // dnsmasq's historical spelling of the same suffix.
    [".corp.example", "corp.example."],
    [".corp.example.", "corp.example."],
    [" corp.example ", "corp.example."],
    [".", "."],
    ["", "."],
  ];
  for (const [written, want] of cases) {
    await t.step(JSON.stringify(written), () => {
      assert.equal(normalizeDomain(written), want);
    });
  }
});

Deno.test("routeQuery routes by an entry written with a leading dot", () => {
  const dotted = upstreamsOf({
    groups,
    conditional: { ".corp.example": "lab" },
  });
  for (const name of ["host.corp.example.", "corp.example."]) {
    assert.deepEqual(routeQuery(requestFrom(`${name} A`), dotted), {
      group: "lab",
      rule: "conditional",
      suffix: "corp.example.",
    });
  }
});
