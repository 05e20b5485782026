/**
 * Measures what a certificate change costs clients: `clients` loops each
 * open a new TLS connection per request (HTTP/1.1, Connection: close) to
 * a DoH listener on loopback while its certificate is replaced `rotations`
 * times, `everyMs` apart, and the failures are counted by kind. New
 * connections are the worst case: an HTTP/2 client keeps its connection,
 * and gets a GOAWAY it retries after (RFC 9113 §6.8). Not a test (its
 * count varies with timing); doh.ts cites its figures.
 *
 *   deno run --unstable-net --allow-net=127.0.0.1 --allow-read \
 *     --allow-run=openssl --allow-write=/tmp \
 *     src/listeners/testdata/doh_rotation_probe.ts [clients] [rotations] [everyMs]
 */
import { memoryLogger } from "../../log/logger.ts";
import { makeTestCertificates } from "../../upstream/testdata/certs.ts";
import { serveDoh } from "../doh.ts";
import { emptySocketCounters } from "../worker_messages.ts";
import { createTestHandler } from "./test_handler.ts";

const [clients = 4, rotations = 20, everyMs = 200] = Deno.args.map(Number);
const certs = await makeTestCertificates();
const pair = { cert: certs.cert, key: certs.key };
const logger = memoryLogger();
const server = serveDoh({
  hostname: "127.0.0.1",
  port: 0,
  handler: createTestHandler({ logger }),
  counters: emptySocketCounters(),
  logger,
  certificate: pair,
});
const { port } = server.addr;
// one.test A, ID 0.
const request = new TextEncoder().encode(
  "GET /dns-query?dns=AAABAAABAAAAAAAAA29uZQR0ZXN0AAABAAE HTTP/1.1\r\n" +
    "Host: localhost\r\nConnection: close\r\n\r\n",
);
const outcomes = new Map<string, number>();
const count = (what: string) =>
  outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
let running = true;

async function client() {
  const buf = new Uint8Array(4096);
  while (running) {
    try {
      const tcp = await Deno.connect({ hostname: "127.0.0.1", port });
      tcp.setNoDelay(true); // as curl does: no Nagle wait on the request
      const conn = await Deno.startTls(tcp, {
        hostname: "localhost",
        caCerts: [certs.caCert],
      });
      try {
        await conn.write(request);
        let got = "";
        for (;;) {
          const n = await conn.read(buf);
          if (n === null) break;
          got += new TextDecoder().decode(buf.subarray(0, n));
        }
        count(
          got.startsWith("HTTP/1.1 200") ? "answered" : "closed unanswered",
        );
      } finally {
        conn.close();
      }
    } catch (error) {
      count(error instanceof Error ? error.name : String(error));
    }
  }
}

const running_ = Array.from({ length: clients }, client);
await new Promise((r) => setTimeout(r, everyMs));
for (let i = 0; i < rotations; i++) {
  await server.setCertificate(pair);
  await new Promise((r) => setTimeout(r, everyMs));
}
running = false;
await Promise.all(running_);
await server.stop();
// deno-lint-ignore no-console -- the probe's one output
console.log(
  JSON.stringify({
    clients,
    rotations,
    everyMs,
    ...Object.fromEntries(outcomes),
  }),
);
