import assert from "node:assert/strict";
import {
  checkMessage,
  signMessage,
  type TsigKey,
  TsigStreamCheck,
} from "../../dns/tsig/tsig.ts";
import type { AnswerStream } from "../../pipeline/handler.ts";
import { buildRequest } from "../../pipeline/request_builder.ts";
import type { Snapshot } from "../../pipeline/snapshot.ts";
import { decodeAnswer, encodeQuery } from "../../testing/query_bytes.ts";
import { snapshotOf } from "../../testing/fixtures.ts";
import { zoneFromText } from "../../testing/zone_text.ts";
import type { ZoneAccessPolicy } from "../../zone/types.ts";
import { createAuthoritativeStage } from "./authoritative.ts";
import { TRANSFER_MESSAGE_OCTETS } from "./zone_transfer.ts";

const KEY: TsigKey & { ref: string } = {
  ref: "xfr",
  name: "xfr.example.",
  algorithm: "hmac-sha256",
  secret: new Uint8Array(32).fill(7),
};

/** A zone of `hosts` A records (each name its own), open to `access`. */
function bigZone(hosts: number, access: ZoneAccessPolicy): Snapshot {
  const lines = [
    "example.org. 3600 IN SOA ns1.example.org. hostmaster.example.org. 9 7200 3600 1209600 300",
    "example.org. 3600 IN NS ns1.example.org.",
    "ns1.example.org. 3600 IN A 192.0.2.53",
  ];
  for (let i = 0; i < hosts; i++) {
    lines.push(
      `host-${i}.example.org. 300 IN A 10.${i >> 16 & 255}.${i >> 8 & 255}.${
        i & 255
      }`,
    );
  }
  const snapshot = snapshotOf([{
    ...zoneFromText("example.org.", lines),
    access,
  }]);
  snapshot.tsigKeys = [KEY];
  return snapshot;
}

/** Every message of the transfer `query` asks for, or the one answer. */
async function transfer(
  snapshot: Snapshot,
  query: Uint8Array,
  tsig?: { key: TsigKey & { ref: string }; mac: Uint8Array },
): Promise<Uint8Array[] | string> {
  let stream: AnswerStream | undefined;
  const req = buildRequest(query, {
    client: {
      address: "127.0.0.1",
      port: 5353,
      transport: "tcp",
      streams: (s) => (stream = s),
    },
    snapshot,
    node: snapshot.node,
    received: Date.now(),
  });
  if (tsig !== undefined) req.tsig = tsig;
  const res = await createAuthoritativeStage().serve(req, () => {
    throw new Error("a transfer is not passed on");
  });
  if (res.stream === undefined) return res.status;
  req.client.streams!(res.stream);
  const messages: Uint8Array[] = [];
  for (
    let m = await stream!.next();
    m !== undefined;
    m = await stream!.next()
  ) {
    messages.push(m);
  }
  return messages;
}

const OPEN: ZoneAccessPolicy = { queryAccess: "allow", zoneTransfer: "allow" };

Deno.test("AXFR: a large zone in messages under 16 KiB, SOA first and last, question in the first only", async () => {
  const messages = await transfer(
    bigZone(5000, OPEN),
    encodeQuery("example.org. AXFR", { id: 77 }),
  );
  assert.ok(Array.isArray(messages));
  assert.ok(messages.length > 3, `${messages.length} messages`);
  const records: string[] = [];
  for (const [i, bytes] of messages.entries()) {
    assert.ok(
      bytes.length <= TRANSFER_MESSAGE_OCTETS,
      `${bytes.length} octets`,
    );
    const m = decodeAnswer(bytes);
    assert.equal(m.id, 77);
    assert.equal(m.rcode, "NOERROR");
    assert.ok(m.aa);
    assert.equal(m.tc, false);
    assert.equal(m.question.length, i === 0 ? 1 : 0);
    records.push(...m.answer);
  }
  assert.equal(records.length, 5000 + 2 + 2); // the SOA twice, NS, ns1 A
  assert.match(records[0]!, / SOA /);
  assert.equal(records.at(-1), records[0]);
  assert.equal(new Set(records).size, records.length - 1);
});

Deno.test("AXFR: signed when asked signed, every message, and the stream checks out", async () => {
  const query = await signMessage(
    encodeQuery("example.org. AXFR", { id: 78 }),
    KEY,
    { now: Math.floor(Date.now() / 1000) },
  );
  const messages = await transfer(
    bigZone(3000, { ...OPEN, transferTSIGKeyRefs: ["xfr"] }),
    query.message,
    { key: KEY, mac: query.mac },
  );
  assert.ok(Array.isArray(messages) && messages.length > 2);
  const check = new TsigStreamCheck(
    KEY,
    query.mac,
    () => Math.floor(Date.now() / 1000),
  );
  for (const message of messages) {
    assert.ok(message.length <= TRANSFER_MESSAGE_OCTETS);
    assert.equal((await check.next(message)).status, "ok");
  }
  // The first alone also checks as a single answer to the query.
  const first = await checkMessage(messages[0]!, () => KEY, {
    now: Math.floor(Date.now() / 1000),
    requestMac: query.mac,
  });
  assert.equal(first.status, "ok");
});

Deno.test("AXFR: refused unless the policy admits the client and the key", async (t) => {
  const query = encodeQuery("example.org. AXFR");
  const cases: [string, ZoneAccessPolicy, string][] = [
    ["default deny", { queryAccess: "allow", zoneTransfer: "deny" }, "refused"],
    [
      "a list without the client",
      { ...OPEN, zoneTransfer: "useNetworkACL", transferACL: ["192.0.2.0/24"] },
      "refused",
    ],
    [
      "a list with the client",
      { ...OPEN, zoneTransfer: "useNetworkACL", transferACL: ["127.0.0.1"] },
      "stream",
    ],
    ["a key required, unsigned query", {
      ...OPEN,
      transferTSIGKeyRefs: ["xfr"],
    }, "refused"],
    [
      "another key required",
      { ...OPEN, transferTSIGKeyRefs: ["other"] },
      "refused",
    ],
  ];
  for (const [name, access, want] of cases) {
    await t.step(name, async () => {
      const got = await transfer(
        bigZone(1, access),
        query,
        name === "another key required"
          ? { key: KEY, mac: new Uint8Array(32) }
          : undefined,
      );
      assert.equal(Array.isArray(got) ? "stream" : got, want);
    });
  }
  await t.step("a name that is not a zone apex: NOTAUTH", async () => {
    assert.equal(
      await transfer(bigZone(1, OPEN), encodeQuery("host-0.example.org. AXFR")),
      "notauth",
    );
  });
});
