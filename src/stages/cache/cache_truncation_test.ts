import assert from "node:assert/strict";
import { EDNS_OPTION, RCODE } from "../../dns/wire/constants.ts";
import type { Request } from "../../pipeline/request.ts";
import { decodeAnswer } from "../../testing/query_bytes.ts";
import { createCacheStage } from "./cache.ts";
import { EDE_STALE_ANSWER } from "./entry_answer.ts";
import {
  ask,
  cacheSettings,
  FakeClock,
  forwarded,
  ScriptedUpstream,
  snapshotWithCache,
} from "./testdata/answers.ts";

const SNAPSHOT = snapshotWithCache(cacheSettings({
  serveStale: { ttl: "1h", answerTTL: "30s", maxWait: "20ms" },
}));

/** Twenty NS records and their glue, as NSD answers with `minimal-responses: no`. */
const HOSTS = Array.from(
  { length: 20 },
  (_, i) => `ns${String(i).padStart(2, "0")}.glue.example.org.`,
);
const NS = HOSTS.map((host) => `glue.example.org. 300 IN NS ${host}`);
const GLUE = HOSTS.flatMap((host, i) => [
  `${host} 300 IN A 192.0.2.${i + 1}`,
  `${host} 300 IN AAAA 2001:db8::${i + 1}`,
]);
const DELEGATION = { answer: NS, additional: GLUE };

const good = (req: Request) => forwarded(req, DELEGATION);
const failing = (req: Request) =>
  forwarded(req, { rcode: RCODE.SERVFAIL }, "servfail_upstream");

/** A stage holding the whole delegation, stored from a TCP client's answer. */
async function cached() {
  const clock = new FakeClock();
  const stage = createCacheStage({ now: clock.now });
  const upstream = new ScriptedUpstream(good);
  const first = await stage.serve(
    ask("glue.example.org. NS", SNAPSHOT, { transport: "tcp" }),
    upstream.next,
  );
  assert.equal(decodeAnswer(first.wire!).additional.length, 40, "all glue");
  return { clock, stage, upstream };
}

/** Clients the whole answer (1,300 octets) is too big for, answer and authority not. */
const SMALL_CLIENTS = [
  { name: "without EDNS (512)", opts: {} },
  { name: "EDNS 1232", opts: { edns: { udpSize: 1232 } } },
  { name: "EDNS 512", opts: { edns: { udpSize: 512 } } },
] as const;

Deno.test("cache leaves the additional section out of a hit too big for the client, without TC", async (t) => {
  for (const { name, opts } of SMALL_CLIENTS) {
    await t.step(name, async () => {
      const { clock, stage, upstream } = await cached();
      clock.advance(10);
      const req = ask("glue.example.org. NS", SNAPSHOT, opts);
      const hit = await stage.serve(req, upstream.next);
      assert.equal(hit.status, "cached");
      assert.ok(hit.wire!.length <= req.maxSize, `${hit.wire!.length} octets`);
      const decoded = decodeAnswer(hit.wire!);
      assert.equal(decoded.tc, false, "RFC 2181 §9: no TC for additional data");
      assert.deepEqual(
        decoded.answer,
        NS.map((rr) => rr.replace(" 300 ", " 290 ")),
      );
      assert.deepEqual(decoded.additional, []);
      assert.equal(decoded.opt !== undefined, "edns" in opts, "our OPT only");
      const arcount = (hit.wire![10]! << 8) | hit.wire![11]!;
      assert.equal(arcount, "edns" in opts ? 1 : 0);
      assert.equal(upstream.calls, 1);
    });
  }
});

Deno.test("cache leaves the additional section out of a stale answer too big for the client", async () => {
  const { clock, stage, upstream } = await cached();
  clock.advance(360);
  upstream.script = failing;
  const res = await stage.serve(
    ask("glue.example.org. NS", SNAPSHOT, { edns: { udpSize: 1232 } }),
    upstream.next,
  );
  assert.equal(res.status, "cached_stale");
  const decoded = decodeAnswer(res.wire!);
  assert.equal(decoded.tc, false);
  assert.deepEqual(decoded.answer, NS.map((rr) => rr.replace(" 300 ", " 30 ")));
  assert.deepEqual(decoded.additional, []);
  const ede = decoded.opt?.options.find((o) => o.code === EDNS_OPTION.EDE);
  assert.deepEqual(ede?.data, new Uint8Array([0, EDE_STALE_ANSWER]));
});

Deno.test("cache keeps the whole answer for a client it fits", async () => {
  const { stage, upstream } = await cached();
  const hit = await stage.serve(
    ask("glue.example.org. NS", SNAPSHOT, { transport: "tcp" }),
    upstream.next,
  );
  const decoded = decodeAnswer(hit.wire!);
  assert.equal(decoded.tc, false);
  assert.equal(decoded.answer.length, 20);
  assert.equal(decoded.additional.length, 40);
});

Deno.test("cache leaves the additional section out of an entry taken from a dump", async () => {
  const { clock, stage } = await cached();
  const target = createCacheStage({ now: clock.now });
  assert.equal(target.importEntries(stage.exportEntries()), 1);
  const upstream = new ScriptedUpstream(failing);
  const hit = await target.serve(
    ask("glue.example.org. NS", SNAPSHOT),
    upstream.next,
  );
  assert.equal(hit.status, "cached");
  const decoded = decodeAnswer(hit.wire!);
  assert.equal(decoded.tc, false);
  assert.equal(decoded.answer.length, 20);
  assert.deepEqual(decoded.additional, []);
});

Deno.test("cache sets TC with empty sections when answer and authority do not fit without the additional section", async () => {
  const clock = new FakeClock();
  const stage = createCacheStage({ now: clock.now });
  const hosts = Array.from({ length: 30 }, (_, i) => `ns${i}.example.net.`);
  const upstream = new ScriptedUpstream((req) =>
    forwarded(req, {
      answer: ["www.example.org. 300 IN A 192.0.2.1"],
      authority: hosts.map((host) => `example.org. 300 IN NS ${host}`),
      additional: hosts.map((host) => `${host} 300 IN A 192.0.2.53`),
    })
  );
  const q = "www.example.org. A";
  await stage.serve(ask(q, SNAPSHOT, { transport: "tcp" }), upstream.next);
  const hit = await stage.serve(ask(q, SNAPSHOT), upstream.next);
  assert.equal(hit.status, "cached");
  const decoded = decodeAnswer(hit.wire!);
  assert.equal(decoded.tc, true);
  assert.deepEqual(decoded.answer, []);
  assert.deepEqual(decoded.authority, []);
  assert.deepEqual(decoded.additional, []);
});
