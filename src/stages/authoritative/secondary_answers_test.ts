import assert from "node:assert/strict";
import { EDNS_OPTION } from "../../dns/wire/constants.ts";
import type { Response } from "../../pipeline/response.ts";
import { decodeResponse } from "../../testing/decode_response.ts";
import { requestFor, snapshotOf } from "../../testing/fixtures.ts";
import { zoneFromText } from "../../testing/zone_text.ts";
import type { ZoneContent } from "../../zone/types.ts";
import { createAuthoritativeStage } from "./authoritative.ts";

const SOA =
  "example.org. 3600 IN SOA ns1.example.org. hostmaster.example.org. 7 3600 600 86400 300";

function secondary(extra: Partial<ZoneContent> = {}): ZoneContent {
  return {
    ...zoneFromText("example.org.", [
      SOA,
      "www.example.org. 300 IN A 192.0.2.1",
    ]),
    primaries: ["192.0.2.53"],
    ...extra,
  };
}

const passed: Response = { drop: true, status: "forwarded", stage: "upstream" };

Deno.test("NOTIFY: taken from a secondary zone's primary, REFUSED from anyone else or for another zone", async (t) => {
  const notified: string[] = [];
  const stage = createAuthoritativeStage({
    onNotify: (zone, from) => notified.push(`${zone} ${from}`),
  });
  const snapshot = snapshotOf([
    secondary(),
    zoneFromText("primary.example.", [
      "primary.example. 3600 IN SOA ns1.primary.example. h.primary.example. 1 3600 600 86400 300",
    ]),
  ]);
  const notify = async (q: string, client: string) => {
    const req = requestFor(q, { snapshot, client, opcode: 4 });
    const res = await stage.serve(req, () => passed);
    return decodeResponse(req, res)!;
  };
  await t.step(
    "from the primary: NOERROR, AA, the zone refreshes",
    async () => {
      const answer = await notify("example.org. SOA", "192.0.2.53");
      assert.equal(answer.rcode, "NOERROR");
      assert.equal(answer.opcode, "NOTIFY");
      assert.ok(answer.aa);
      assert.deepEqual(notified, ["example.org. 192.0.2.53"]);
    },
  );
  await t.step("IPv4-mapped, from the primary", async () => {
    const answer = await notify("example.org. SOA", "::ffff:192.0.2.53");
    assert.equal(answer.rcode, "NOERROR");
    assert.equal(notified.length, 2);
  });
  await t.step("from a stranger: REFUSED, nothing refreshes", async () => {
    assert.equal(
      (await notify("example.org. SOA", "203.0.113.9")).rcode,
      "REFUSED",
    );
    assert.equal(notified.length, 2);
  });
  await t.step("for a primary zone, or one not served: REFUSED", async () => {
    assert.equal(
      (await notify("primary.example. SOA", "192.0.2.53")).rcode,
      "REFUSED",
    );
    assert.equal(
      (await notify("other.example. SOA", "192.0.2.53")).rcode,
      "REFUSED",
    );
    assert.equal(notified.length, 2);
  });
});

Deno.test("a secondary zone with no copy to serve answers SERVFAIL with a reason, never NXDOMAIN", async () => {
  const stage = createAuthoritativeStage();
  const snapshot = snapshotOf([
    secondary({
      unavailable: "expired: no primary confirmed it within the SOA expire",
    }),
  ]);
  for (
    const q of [
      "www.example.org. A",
      "nope.example.org. A",
      "example.org. AXFR",
    ]
  ) {
    const req = requestFor(q, { snapshot, edns: {}, transport: "tcp" });
    const res = await stage.serve(req, () => passed);
    const answer = decodeResponse(req, res)!;
    assert.equal(answer.rcode, "SERVFAIL", q);
    if (q.endsWith(" A")) {
      const ede = answer.opt!.options.find((o) => o.code === EDNS_OPTION.EDE)!;
      assert.match(new TextDecoder().decode(ede.data.subarray(2)), /expired/);
    }
  }
});
