/**
 * kudurru's NOTIFY (src/transfer/notify_out.ts) against a real secondary:
 * Knot, set up to take NOTIFY for its zone from 127.0.0.1 signed with one
 * TSIG key (knot_secondary.ts). Knot must acknowledge the signed NOTIFY
 * (and then try to refresh from its primary, which does not answer), and
 * answer NOTAUTH to a NOTIFY with the wrong secret, an unknown key, or no
 * key at all. And Knot as a primary, to compare its NOTIFY with ours.
 */
import assert from "node:assert/strict";
import dnsPacket from "dns-packet";
import { Buffer } from "node:buffer";
import type { TsigKey } from "../../src/dns/tsig/tsig.ts";
import { OPCODE } from "../../src/dns/wire/constants.ts";
import { parseQuery } from "../../src/dns/wire/query.ts";
import { encodeResponse } from "../../src/dns/wire/response.ts";
import { frameMessage, FrameReader } from "../../src/dns/wire/tcp_framing.ts";
import { freePort } from "../../src/testing/free_port.ts";
import { memoryLogger } from "../../src/log/logger.ts";
import { query } from "../../src/testing/dns_client.ts";
import { encodeNotify } from "../../src/transfer/notify_message.ts";
import {
  createNotifier,
  type NotifyResult,
} from "../../src/transfer/notify_out.ts";
import {
  soaOf,
  waitFor,
} from "../../src/transfer/testdata/notify_responder.ts";
import {
  type KnotSecondary,
  startKnotPrimary,
  startKnotSecondary,
} from "./knot_notify.ts";

const ZONE = "notify.test.";

function keyOf(name: string): TsigKey {
  return {
    name,
    algorithm: "hmac-sha256",
    secret: crypto.getRandomValues(new Uint8Array(32)),
  };
}

/** Sends one NOTIFY of `serial` to Knot; the result after `retries` retries. */
async function notifyKnot(
  knot: KnotSecondary,
  serial: number,
  key: TsigKey | undefined,
  retries = 0,
): Promise<NotifyResult> {
  const results: NotifyResult[] = [];
  const notifier = createNotifier({
    logger: memoryLogger(),
    timeoutMs: 1000,
    retries,
    retryDelayMs: 50,
    onResult: (r) => results.push(r),
  });
  try {
    notifier.notify(
      ZONE,
      soaOf(ZONE, serial),
      [{ address: "127.0.0.1", port: knot.port }],
      key,
    );
    await waitFor(() => results.length === 1, "Knot's reply", 5000);
    return results[0]!;
  } finally {
    await notifier.stop();
  }
}

Deno.test("interop Knot acknowledges kudurru's TSIG-signed NOTIFY, and refuses a wrong key with NOTAUTH", async (t) => {
  const key = keyOf("notify-key.");
  await using knot = await startKnotSecondary({ zone: ZONE, key });

  const refreshes = () =>
    knot.output().split(`refresh, address 127.0.0.1@${knot.primaryPort},`)
      .length - 1;

  await t.step(
    "the serial Knot has: acknowledged, and no refresh",
    async () => {
      const result = await notifyKnot(knot, knot.serial, key);
      assert.equal(result.outcome, "acknowledged", knot.output());
      await waitFor(
        () =>
          /notify, incoming, remote 127\.0\.0\.1@\d+, serial 1\b/
            .test(knot.output()),
        "Knot's log of the NOTIFY",
      );
      // Knot compares the SOA we send along with its own (RFC 1996 §3.7)
      // and does not ask the primary for a serial it already has.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(refreshes(), 0, knot.output());
    },
  );

  await t.step("signed with the key: acknowledged", async () => {
    const result = await notifyKnot(knot, 2, key);
    assert.equal(result.outcome, "acknowledged", knot.output());
    assert.equal(result.attempts, 1);
    // Knot reads the serial from the SOA we send along ...
    await waitFor(
      () =>
        /\[notify\.test\.\] notify, incoming, remote 127\.0\.0\.1@\d+, serial 2/
          .test(knot.output()),
      "Knot's log of the NOTIFY",
    );
    // ... and asks its primary for the zone (§3.7), which does not answer.
    await waitFor(() => refreshes() === 1, "Knot's refresh from the primary");
    const soa = await query(knot.port, ZONE, "SOA");
    assert.equal(soa.answers[0]?.data.serial, 1, "still the zone it had");
  });

  await t.step(
    "the right key name with another secret: NOTAUTH (BADSIG), retried, failed",
    async () => {
      const result = await notifyKnot(knot, 3, {
        ...keyOf(key.name),
        name: key.name,
      }, 1);
      assert.equal(result.outcome, "failed");
      assert.equal(result.error, "NOTAUTH (BADSIG)");
      assert.equal(result.attempts, 2);
    },
  );

  await t.step("a key Knot does not know: NOTAUTH (BADKEY)", async () => {
    const result = await notifyKnot(knot, 4, keyOf("other-key."));
    assert.equal(result.outcome, "failed");
    assert.equal(result.error, "NOTAUTH (BADKEY)");
  });

  await t.step("unsigned, where the ACL wants the key: NOTAUTH", async () => {
    const result = await notifyKnot(knot, 5, undefined);
    assert.equal(result.outcome, "failed");
    assert.equal(result.error, "NOTAUTH");
  });

  assert.doesNotMatch(
    knot.output(),
    /notify, incoming, remote 127\.0\.0\.1@\d+, serial [345]\b/,
    "Knot took none of the refused NOTIFYs",
  );
});

/**
 * Takes NOTIFYs on 127.0.0.1@port over UDP and TCP (Knot 3.2 sends them
 * over TCP), answers NOERROR and keeps what came, with the transport.
 */
function notifySink(port: number) {
  const got: { transport: "udp" | "tcp"; message: Uint8Array }[] = [];
  const reply = (message: Uint8Array) => {
    const info = parseQuery(message);
    return encodeResponse({
      id: info.id,
      opcode: OPCODE.NOTIFY,
      rcode: 0,
      aa: true,
      ...(info.question && { question: info.question }),
    }, 512);
  };
  const udp = Deno.listenDatagram({
    transport: "udp",
    hostname: "127.0.0.1",
    port,
  });
  const tcp = Deno.listen({ hostname: "127.0.0.1", port });
  const connections = new Set<Deno.Conn>();
  const udpLoop = (async () => {
    try {
      for (;;) {
        const [data, from] = await udp.receive();
        got.push({ transport: "udp", message: data.slice() });
        await udp.send(reply(data), from);
      }
    } catch {
      // closed
    }
  })();
  const served: Promise<void>[] = [];
  const tcpLoop = (async () => {
    try {
      for await (const conn of tcp) {
        connections.add(conn);
        served.push((async () => {
          const frames = new FrameReader();
          const buffer = new Uint8Array(4096);
          try {
            for (;;) {
              const n = await conn.read(buffer);
              if (n === null) break;
              for (const message of frames.push(buffer.subarray(0, n))) {
                got.push({ transport: "tcp", message });
                await conn.write(frameMessage(reply(message))!);
              }
            }
          } catch {
            // closed
          } finally {
            if (connections.delete(conn)) conn.close();
          }
        })());
      }
    } catch {
      // closed
    }
  })();
  return {
    got,
    async close() {
      udp.close();
      tcp.close();
      for (const conn of connections) conn.close();
      connections.clear();
      await Promise.all([udpLoop, tcpLoop, ...served]);
    },
  };
}

Deno.test("interop Knot as a primary sends the NOTIFY kudurru sends: AA, the SOA question, the SOA in the answer", async () => {
  const zone = "primary.test.";
  const port = freePort();
  const sink = notifySink(port);
  try {
    await using _knot = await startKnotPrimary({
      zone,
      serial: 7,
      notifyPort: port,
    });
    await waitFor(() => sink.got.length > 0, "Knot's NOTIFY", 5000);
    const shape = (message: Uint8Array) => {
      const d = dnsPacket.decode(Buffer.from(message));
      return {
        opcode: d.opcode,
        qr: d.type === "response",
        aa: d.flag_aa,
        rd: d.flag_rd,
        questions: d.questions,
        answers: d.answers.map((
          a: { name: string; type: string; data: { serial: number } },
        ) => [a.name, a.type, a.data.serial]),
      };
    };
    const knots = shape(sink.got[0]!.message);
    const ours = shape(encodeNotify({ id: 1, zone, soa: soaOf(zone, 7) }));
    assert.deepEqual(ours, knots);
    assert.deepEqual(knots.answers, [["primary.test", "SOA", 7]]);
  } finally {
    await sink.close();
  }
});
