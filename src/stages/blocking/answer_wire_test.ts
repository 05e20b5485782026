import assert from "node:assert/strict";
import fc from "fast-check";
import { RCODE } from "../../dns/wire/constants.ts";
import { encodeResponse } from "../../dns/wire/response.ts";
import { requestFor } from "../../testing/fixtures.ts";
import { inspectAnswerWire } from "./answer_wire.ts";
import type { ResolvedPolicy } from "./policy_lists.ts";
import { decision, records, rules, ZERO_IP } from "./testdata/fixtures.ts";
import { openSetList, setListData } from "./testdata/set_matcher.ts";

/** A policy with one block list holding `lines`, and the names it was asked about. */
function recordingPolicy(
  ...lines: string[]
): { policy: ResolvedPolicy; asked: string[] } {
  const matcher = openSetList(
    setListData({ key: "k", name: "List", mode: "block" }, rules(...lines)),
  );
  const asked: string[] = [];
  const recording = {
    ...matcher,
    check(name: string) {
      asked.push(name);
      return matcher.check(name);
    },
  };
  const list = { matcher: recording, name: "List", response: undefined };
  return {
    policy: {
      decision: decision(),
      allow: [],
      block: [list],
      response: ZERO_IP,
    },
    asked,
  };
}

function answerWire(question: string, lines: string[]): Uint8Array {
  const q = requestFor(question).query;
  return encodeResponse({
    id: 1,
    opcode: 0,
    rcode: RCODE.NOERROR,
    question: q.question!,
    answer: records(lines),
    authority: records(["example.org. 300 IN NS ns.example.net."]),
    additional: records(["ns.example.org. 300 IN A 192.0.2.200"]),
  }, 65535);
}

Deno.test("the wire walk looks at CNAME targets, addresses and SVCB hints only, in order", () => {
  const { policy, asked } = recordingPolicy();
  const wire = answerWire("www.example.org. HTTPS", [
    "www.example.org. 300 IN CNAME Edge.Example.NET.",
    "edge.example.net. 300 IN CNAME www.example.org.",
    'www.example.org. 300 IN TXT "192.0.2.1"',
    "www.example.org. 300 IN MX 10 mail.example.org.",
    "www.example.org. 300 IN A 192.0.2.1",
    "www.example.org. 300 IN AAAA 2001:db8::1",
    "www.example.org. 300 IN SVCB 1 svc.example.net. ipv4hint=192.0.2.2 ipv6hint=2001:db8::2,2001:db8::3",
    "www.example.org. 300 IN HTTPS 1 . alpn=h2",
  ]);
  assert.equal(inspectAnswerWire(wire, policy), undefined);
  // Authority and additional records are not the answer: never asked.
  assert.deepEqual(asked, [
    "edge.example.net.",
    "www.example.org.",
    "192.0.2.1",
    "2001:db8::1",
    "svc.example.net.",
    "192.0.2.2",
    "2001:db8::2",
    "2001:db8::3",
  ]);
});

Deno.test("the wire walk stops at the first hit", () => {
  const { policy, asked } = recordingPolicy("192.0.2.1");
  const wire = answerWire("www.example.org. A", [
    "www.example.org. 300 IN A 192.0.2.1",
    "www.example.org. 300 IN A 192.0.2.2",
  ]);
  const hit = inspectAnswerWire(wire, policy);
  assert.equal(hit?.rule, "A 192.0.2.1: 192.0.2.1");
  assert.deepEqual(asked, ["192.0.2.1"]);
});

Deno.test("the wire walk skips an empty answer section without reading further", () => {
  const { policy, asked } = recordingPolicy();
  const wire = answerWire("www.example.org. A", []);
  // Break everything after the header: an empty answer is never walked.
  wire.fill(0xff, 12);
  assert.equal(inspectAnswerWire(wire, policy), undefined);
  assert.deepEqual(asked, []);
});

Deno.test("the wire walk never throws on garbage or damaged answers", () => {
  const { policy } = recordingPolicy("||example.net^", "192.0.2.1");
  const valid = answerWire("www.example.org. A", [
    "www.example.org. 300 IN CNAME a.example.com.",
    "a.example.com. 300 IN HTTPS 1 . ipv4hint=192.0.2.9 ipv6hint=2001:db8::9",
    "a.example.com. 300 IN A 192.0.2.3",
  ]);
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      inspectAnswerWire(bytes, policy);
    }),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(fc.nat({ max: valid.length - 1 }), fc.nat({ max: 255 })),
        {
          maxLength: 6,
        },
      ),
      fc.nat({ max: valid.length }),
      (edits, length) => {
        const damaged = valid.slice(0, length);
        for (const [at, value] of edits) {
          if (at < damaged.length) damaged[at] = value;
        }
        inspectAnswerWire(damaged, policy);
      },
    ),
    { numRuns: 3000 },
  );
});
