/**
 * transferIn against a scripted primary on a real socket: what a primary
 * that misbehaves sends must end the transfer with a reason, never yield
 * a copy.
 */
import assert from "node:assert/strict";
import { TYPE } from "../dns/wire/constants.ts";
import { encodeResponse } from "../dns/wire/response.ts";
import { frameMessage, FrameReader } from "../dns/wire/tcp_framing.ts";
import type { RRSet } from "../dns/rrset.ts";
import { rrsetsFromText } from "../testing/zone_text.ts";
import { writeAll } from "../testing/dns_client.ts";
import { TransferError, transferIn } from "./transfer_in.ts";

const soa = (serial: number) =>
  `example.org. 3600 IN SOA ns1.example.org. hostmaster.example.org. ${serial} 3600 600 86400 300`;

/**
 * A primary that answers the SOA query with `serial`, and the transfer
 * with `messages` (records per message); `closeEarly` hangs up instead of
 * sending the last one.
 */
function scriptedPrimary(
  serial: number,
  messages: string[][],
  closeEarly = false,
) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served = (async () => {
    for await (const conn of listener) {
      const frames = new FrameReader();
      const buffer = new Uint8Array(4096);
      let answered = 0;
      try {
        for (;;) {
          const n = await conn.read(buffer);
          if (n === null) break;
          for (const query of frames.push(buffer.subarray(0, n))) {
            const id = query[0]! << 8 | query[1]!;
            const replies = answered++ === 0 ? [[soa(serial)]] : messages;
            for (const [i, records] of replies.entries()) {
              if (closeEarly && answered > 1 && i === replies.length - 1) {
                throw new Error("hang up");
              }
              const bytes = encodeResponse({
                id,
                opcode: 0,
                rcode: 0,
                aa: true,
                answer: rrsetsFromText(records) as RRSet[],
              }, 65535);
              await writeAll(conn, frameMessage(bytes)!.slice());
            }
          }
        }
      } catch {
        // the script hangs up
      } finally {
        conn.close();
      }
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    async [Symbol.asyncDispose]() {
      listener.close();
      await served;
    },
  };
}

async function reason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof TransferError, String(error));
    return error.reason;
  }
  return "no error";
}

const ZONE = [
  "example.org. 3600 IN NS ns1.example.org.",
  "ns1.example.org. 3600 IN A 192.0.2.53",
];

Deno.test("transferIn: a whole AXFR in several messages", async () => {
  await using primary = scriptedPrimary(5, [
    [soa(5), ZONE[0]!],
    [ZONE[1]!],
    [soa(5)],
  ]);
  const result = await transferIn(
    "example.org.",
    {
      address: "127.0.0.1",
      port: primary.port,
    },
    undefined,
    { timeoutMs: 3000 },
  );
  assert.ok(result.kind === "transferred");
  assert.equal(result.serial, 5);
  assert.equal(result.messages, 3);
  assert.deepEqual(result.rrsets.map((r) => r.type), [
    TYPE.SOA,
    TYPE.NS,
    TYPE.A,
  ]);
});

Deno.test("transferIn refuses what a primary must not send, and keeps nothing of it", async (t) => {
  const cases: [string, number, string[][], string, boolean?][] = [
    ["a record outside the zone", 5, [[
      soa(5),
      "www.example.com. 300 IN A 192.0.2.1",
      soa(5),
    ]], "out_of_zone"],
    ["a stream that does not start with the SOA", 5, [[ZONE[0]!, soa(5)], [
      soa(5),
    ]], "malformed"],
    [
      "a stream cut before its last SOA",
      5,
      [[soa(5), ...ZONE], [soa(5)]],
      "truncated",
      true,
    ],
    [
      "a second SOA at the apex",
      5,
      [[soa(5)], [soa(4), ...ZONE], [soa(5)]],
      "malformed",
    ],
  ];
  for (const [name, serial, messages, want, closeEarly] of cases) {
    await t.step(name, async () => {
      await using primary = scriptedPrimary(serial, messages, closeEarly);
      assert.equal(
        await reason(transferIn(
          "example.org.",
          {
            address: "127.0.0.1",
            port: primary.port,
          },
          undefined,
          { timeoutMs: 3000 },
        )),
        want,
      );
    });
  }
  await t.step("a serial older than ours", async () => {
    await using primary = scriptedPrimary(3, [[soa(3), ...ZONE, soa(3)]]);
    const held = { serial: 5, rrsets: rrsetsFromText([soa(5), ...ZONE]) };
    assert.equal(
      await reason(transferIn(
        "example.org.",
        {
          address: "127.0.0.1",
          port: primary.port,
        },
        held,
        { timeoutMs: 3000 },
      )),
      "serial_backwards",
    );
  });
  await t.step("more records than the cap", async () => {
    await using primary = scriptedPrimary(5, [[soa(5), ...ZONE, soa(5)]]);
    assert.equal(
      await reason(transferIn(
        "example.org.",
        {
          address: "127.0.0.1",
          port: primary.port,
        },
        undefined,
        { timeoutMs: 3000, maxRecords: 2 },
      )),
      "too_large",
    );
  });
  await t.step(
    "a primary that never answers, when the server stops",
    async () => {
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const held: Deno.Conn[] = [];
      const accepting = (async () => {
        for await (const conn of listener) held.push(conn);
      })();
      const stop = new AbortController();
      setTimeout(() => stop.abort(), 100);
      assert.equal(
        await reason(transferIn(
          "example.org.",
          {
            address: "127.0.0.1",
            port: (listener.addr as Deno.NetAddr).port,
          },
          undefined,
          { timeoutMs: 10_000, signal: stop.signal },
        )),
        "stopped",
      );
      listener.close();
      await accepting;
      for (const conn of held) conn.close();
    },
  );
  await t.step("nothing listening", async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    assert.equal(
      await reason(
        transferIn("example.org.", { address: "127.0.0.1", port }, undefined, {
          timeoutMs: 3000,
        }),
      ),
      "unreachable",
    );
  });
});

Deno.test("transferIn stops a zone of a million records at its cap, holding no more than the cap", async () => {
  // A primary streaming 1,000,000 A records, made as it sends them.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const RECORDS = 1_000_000;
  const PER_MESSAGE = 500;
  const served = (async () => {
    for await (const conn of listener) {
      const frames = new FrameReader();
      const buffer = new Uint8Array(4096);
      let answered = 0;
      try {
        for (;;) {
          const n = await conn.read(buffer);
          if (n === null) break;
          for (const query of frames.push(buffer.subarray(0, n))) {
            const id = query[0]! << 8 | query[1]!;
            const send = async (answer: RRSet[]) => {
              const bytes = encodeResponse({
                id,
                opcode: 0,
                rcode: 0,
                aa: true,
                answer,
              }, 65535);
              await writeAll(conn, frameMessage(bytes)!.slice());
            };
            if (answered++ === 0) {
              await send(rrsetsFromText([soa(5)]));
              continue;
            }
            await send(rrsetsFromText([soa(5)]));
            for (let i = 0; i < RECORDS; i += PER_MESSAGE) {
              const answer: RRSet[] = [];
              for (let j = i; j < i + PER_MESSAGE; j++) {
                answer.push({
                  name: `h${j}.example.org.`,
                  type: TYPE.A,
                  ttl: 300,
                  rdata: [{
                    type: "A",
                    address: `10.${j >> 16 & 255}.${j >> 8 & 255}.${j & 255}`,
                  }],
                });
              }
              await send(answer);
            }
            await send(rrsetsFromText([soa(5)]));
          }
        }
      } catch {
        // the client hung up at its cap
      } finally {
        conn.close();
      }
    }
  })();
  try {
    const cap = 200_000;
    assert.equal(
      await reason(transferIn(
        "example.org.",
        {
          address: "127.0.0.1",
          port: (listener.addr as Deno.NetAddr).port,
        },
        undefined,
        { timeoutMs: 60_000, maxRecords: cap },
      )),
      "too_large",
    );
  } finally {
    listener.close();
    await served;
  }
});
