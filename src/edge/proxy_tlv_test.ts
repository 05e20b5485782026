/**
 * What the real dnsdist puts on the wire to a backend, read byte by byte: a
 * PROXYv2 header (the PROXY protocol spec, section 2.2) with the client's
 * address and the secret as TLV 0xE0 on client queries, and a LOCAL header
 * with no TLV on its own health checks. kudurru's PROXYv2 reader must take
 * both: the secret proves a client address, and a LOCAL header claims none.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import dnsPacket from "dns-packet";
import { query } from "../testing/dns_client.ts";
import { freePort } from "../testing/free_port.ts";
import { eventually, startTestEdge } from "./test_kit.ts";
import { PROXY_SECRET_TLV } from "./proxy_secret.ts";

/** "\r\n\r\n\0\r\nQUIT\n": the first 12 bytes of every PROXYv2 header. */
const SIGNATURE = [...new TextEncoder().encode("\r\n\r\n\0\r\nQUIT\n")];

/** One PROXYv2 header as received. */
interface ProxyHeader {
  /** 0x20 LOCAL, 0x21 PROXY (version 2 in the high nibble). */
  versionCommand: number;
  /** 0x12: UDP over IPv4; 0x00: unspecified (LOCAL). */
  family: number;
  source?: string;
  tlvs: Map<number, Uint8Array>;
  dnsName: string;
}

/** Splits a datagram into its PROXYv2 header and the DNS message after it. */
function parseProxy(
  bytes: Uint8Array,
): { header: ProxyHeader; dns: Uint8Array } {
  assert.deepEqual([...bytes.subarray(0, 12)], SIGNATURE, "PROXYv2 signature");
  const versionCommand = bytes[12]!;
  const family = bytes[13]!;
  const length = (bytes[14]! << 8) | bytes[15]!;
  const body = bytes.subarray(16, 16 + length);
  let offset = 0;
  let source: string | undefined;
  if (family === 0x11 || family === 0x12) {
    source = [...body.subarray(0, 4)].join(".");
    offset = 12; // source, destination, source port, destination port
  }
  const tlvs = new Map<number, Uint8Array>();
  while (offset + 3 <= body.length) {
    const type = body[offset]!;
    const len = (body[offset + 1]! << 8) | body[offset + 2]!;
    tlvs.set(type, body.slice(offset + 3, offset + 3 + len));
    offset += 3 + len;
  }
  const dns = bytes.subarray(16 + length);
  const decoded = dnsPacket.decode(Buffer.from(dns));
  return {
    header: {
      versionCommand,
      family,
      ...(source ? { source } : {}),
      tlvs,
      dnsName: decoded.questions?.[0]?.name ?? "",
    },
    dns,
  };
}

/**
 * A UDP backend that records every header and answers every question:
 * TXT for the health check name, A 192.0.2.9 for anything else.
 */
function startRecordingPeer(port: number) {
  const socket = Deno.listenDatagram({
    transport: "udp",
    hostname: "127.0.0.1",
    port,
  });
  const headers: ProxyHeader[] = [];
  const serving = (async () => {
    try {
      while (true) {
        const [bytes, from] = await socket.receive();
        const { header, dns } = parseProxy(bytes);
        headers.push(header);
        const q = dnsPacket.decode(Buffer.from(dns));
        const name = q.questions?.[0]?.name ?? "";
        const answer = name === "health.kudurru.internal"
          ? { type: "TXT", name, ttl: 0, data: "peer" }
          : { type: "A", name, ttl: 60, data: "192.0.2.9" };
        const reply = dnsPacket.encode({
          type: "response",
          id: q.id,
          flags: dnsPacket.RECURSION_DESIRED | dnsPacket.AUTHORITATIVE_ANSWER,
          questions: q.questions,
          answers: [answer],
        });
        await socket.send(new Uint8Array(reply), from);
      }
    } catch {
      // Closed: the test is over.
    }
  })();
  return {
    headers,
    close: async () => {
      socket.close();
      await serving;
    },
  };
}

Deno.test("dnsdist sends the client's address and the secret TLV on queries, a bare LOCAL header on health checks", async () => {
  // A secret that would break out of a naive Lua string, NUL included.
  const secret = new Uint8Array([
    ...new TextEncoder().encode('quote" backslash\\ newline\n ]] '),
    0,
    ...crypto.getRandomValues(new Uint8Array(16)),
  ]);
  assert.ok(secret.length >= 32);
  const port = freePort();
  const peer = startRecordingPeer(port);
  try {
    const edge = await startTestEdge({
      backends: [`127.0.0.1:${port}`],
      secret,
    });
    try {
      const reply = await eventually(
        "an answer through dnsdist",
        () =>
          query(edge.dnsPort, "www.test.", "A", {
            from: "127.0.0.2",
            timeoutMs: 1000,
          }),
      );
      assert.equal(reply.answers[0]?.data, "192.0.2.9");
    } finally {
      await edge.stop();
    }
  } finally {
    await peer.close();
  }
  const checks = peer.headers.filter((h) =>
    h.dnsName === "health.kudurru.internal"
  );
  assert.ok(checks.length > 0, "dnsdist health-checked the backend");
  for (const h of checks) {
    assert.equal(h.versionCommand, 0x20, "LOCAL");
    assert.equal(h.family, 0x00);
    assert.equal(h.tlvs.size, 0, "no secret on health checks");
  }
  const queries = peer.headers.filter((h) => h.dnsName === "www.test");
  assert.ok(queries.length > 0);
  for (const h of queries) {
    assert.equal(h.versionCommand, 0x21, "PROXY");
    assert.equal(h.family, 0x12, "UDP over IPv4");
    assert.equal(h.source, "127.0.0.2");
    assert.deepEqual(h.tlvs.get(PROXY_SECRET_TLV), secret);
  }
});
