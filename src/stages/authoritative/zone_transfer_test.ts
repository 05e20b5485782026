import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { TYPE } from "../../dns/wire/constants.ts";
import { encodeResponse } from "../../dns/wire/response.ts";
import { decodeResponse } from "../../testing/decode_response.ts";
import { JOURNAL_SCHEMA_SQL, ZoneJournal } from "../../zone/journal.ts";
import { diffZones } from "../../zone/zone_diff.ts";
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
import { rrsetsFromText, zoneFromText } from "../../testing/zone_text.ts";
import type { ZoneAccessPolicy, ZoneContent } from "../../zone/types.ts";
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
    // The records fill up to the limit; the TSIG record comes on top.
    assert.ok(message.length <= TRANSFER_MESSAGE_OCTETS + 128);
    assert.equal((await check.next(message)).status, "ok");
  }
  // The first alone also checks as a single answer to the query.
  const first = await checkMessage(messages[0]!, () => KEY, {
    now: Math.floor(Date.now() / 1000),
    requestMac: query.mac,
  });
  assert.equal(first.status, "ok");
});

Deno.test("AXFR: a second transfer of the same zone gets the same messages, with its own ID and question", async () => {
  const snapshot = bigZone(3000, OPEN);
  const first = await transfer(
    snapshot,
    encodeQuery("example.org. AXFR", { id: 1 }),
  );
  const second = await transfer(
    snapshot,
    encodeQuery("EXAMPLE.org. AXFR", { id: 2 }),
  );
  assert.ok(Array.isArray(first) && Array.isArray(second));
  assert.equal(first.length, second.length);
  for (const [i, message] of second.entries()) {
    assert.equal(message[1], 2);
    assert.deepEqual(
      message.subarray(2),
      first[i]!.subarray(2).map((b, at) =>
        // The question's letters are the client's.
        i === 0 && at >= 10 && at < 10 + 13 ? message[2 + at]! : b
      ),
    );
  }
  assert.deepEqual(decodeAnswer(second[0]!).question, ["EXAMPLE.org. AXFR IN"]);
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

/** An IXFR query for example.org. from a client at `serial`. */
function ixfrQuery(serial: number | undefined): Uint8Array {
  const soa = rrsetsFromText([
    `example.org. 3600 IN SOA ns1.example.org. hostmaster.example.org. ${serial} 7200 3600 1209600 300`,
  ]);
  const message = encodeResponse({
    id: 90,
    opcode: 0,
    rcode: 0,
    question: { name: "example.org.", type: TYPE.IXFR, class: 1 },
    ...(serial !== undefined && { authority: soa }),
  }, 65535);
  message[2] = message[2]! & 0x7f;
  return message;
}

function version(serial: number, lines: string[]): ZoneContent {
  return {
    ...zoneFromText("example.org.", [
      `example.org. 3600 IN SOA ns1.example.org. hostmaster.example.org. ${serial} 7200 3600 1209600 300`,
      "example.org. 3600 IN NS ns1.example.org.",
      "ns1.example.org. 3600 IN A 192.0.2.53",
      ...lines,
    ]),
    serial,
    access: OPEN,
  };
}

Deno.test("IXFR: the differences from the journal, the SOA alone when current, the whole zone when the journal lacks the serial", async (t) => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "journal.db");
  const db = new DatabaseSync(path);
  db.exec(JOURNAL_SCHEMA_SQL);
  const v10 = version(10, ["www.example.org. 300 IN A 192.0.2.1"]);
  const v11 = version(11, [
    "www.example.org. 300 IN A 192.0.2.2",
    "new.example.org. 300 IN A 192.0.2.3",
  ]);
  new ZoneJournal(db).record("example.org.", diffZones(v10, v11));
  db.close();
  const snapshot: Snapshot = { ...snapshotOf([v11]), journalPath: path };
  const records = (messages: Uint8Array[] | string) => {
    assert.ok(Array.isArray(messages), String(messages));
    return messages.flatMap((m) => decodeAnswer(m).answer).map((r) =>
      r.replace(
        / ns1\.example\.org\. hostmaster\.example\.org\. (\d+) .*/,
        " $1",
      )
    );
  };
  try {
    await t.step("from 10: one difference", async () => {
      assert.deepEqual(records(await transfer(snapshot, ixfrQuery(10))), [
        "example.org. 3600 IN SOA 11",
        "example.org. 3600 IN SOA 10",
        "www.example.org. 300 IN A 192.0.2.1",
        "example.org. 3600 IN SOA 11",
        "new.example.org. 300 IN A 192.0.2.3",
        "www.example.org. 300 IN A 192.0.2.2",
        "example.org. 3600 IN SOA 11",
      ]);
    });
    await t.step("from 11 (or newer): the SOA alone", async () => {
      for (const serial of [11, 12]) {
        const res = await serveOnce(snapshot, ixfrQuery(serial), "tcp");
        assert.deepEqual(res.answer, [
          "example.org. 3600 IN SOA ns1.example.org. hostmaster.example.org. 11 7200 3600 1209600 300",
        ]);
      }
    });
    await t.step("from 9, before the journal: the whole zone", async () => {
      const got = records(await transfer(snapshot, ixfrQuery(9)));
      assert.equal(got.length, 6);
      assert.equal(got[0], got.at(-1));
    });
    await t.step("over UDP: the SOA alone, to ask again over TCP", async () => {
      const res = await serveOnce(snapshot, ixfrQuery(10), "udp");
      assert.equal(res.answer.length, 1);
      assert.match(res.answer[0]!, / SOA .* 11 /);
    });
    await t.step("no SOA in the authority section: FORMERR", async () => {
      const res = await serveOnce(snapshot, ixfrQuery(undefined), "tcp");
      assert.equal(res.rcode, "FORMERR");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The one answer (not a stream) of the authoritative stage. */
async function serveOnce(
  snapshot: Snapshot,
  query: Uint8Array,
  transport: "udp" | "tcp",
) {
  const req = buildRequest(query, {
    client: {
      address: "127.0.0.1",
      port: 5353,
      transport,
      ...(transport === "tcp" && { streams: () => {} }),
    },
    snapshot,
    node: snapshot.node,
    received: Date.now(),
  });
  const res = await createAuthoritativeStage().serve(req, () => {
    throw new Error("a transfer is not passed on");
  });
  assert.equal(res.stream, undefined);
  return decodeResponse(req, res)!;
}
