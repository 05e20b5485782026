/**
 * kudurru forwarding to a real Unbound over TCP, DNS-over-TLS and
 * DNS-over-HTTPS (forwarding_test.ts covers UDP; DoH with Unbound's own
 * HTTP/2 server, libnghttp2). The
 * upstream group names only the transport under test, and Unbound offers
 * nothing else there (no UDP at all; TLS and HTTPS on ports of their own), so an
 * answer with NSD's data proves the exchange. Naming the plain-UDP address
 * instead, or leaving the test CA out, makes both tests fail (SERVFAIL).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { makeTestCertificates } from "../../src/upstream/testdata/certs.ts";
import { query } from "../../src/testing/dns_client.ts";
import {
  LOCAL_READY_ZONE,
  localReadyZoneObject,
  startKudurru,
} from "../../src/testing/kudurru_server.ts";
import { startNsd } from "../interop/peers.ts";
import { type RunningUnbound, startUnbound } from "./unbound.ts";

const ZONE = `$ORIGIN resolver.test.
@      300 IN SOA ns1 hostmaster 1 3600 900 1209600 300
@      300 IN NS  ns1
ns1    300 IN A   192.0.2.53
www    300 IN A   192.0.2.10
`;

/** Asks kudurru for www.resolver.test. A, forwarded to `server`. */
async function forwardedThrough(
  server: string,
  env: Record<string, string> = {},
): Promise<string[]> {
  await using kudurru = await startKudurru({
    objects: [localReadyZoneObject()],
    readyZone: LOCAL_READY_ZONE,
    // extraConfig's upstreams replace the ones upstreamPort would make.
    upstreamPort: 9,
    extraConfig: {
      upstreams: {
        groups: { default: { servers: [server] } },
        bootstrap: ["127.0.0.1:9"], // unused: the server is an address
      },
    },
    env,
  });
  const reply = await query(kudurru.port, "www.resolver.test.", "A");
  assert.equal(reply.rcode, "NOERROR", `answer via ${server}`);
  return reply.answers.map((r) => r.data as string);
}

Deno.test("resolver forwards to Unbound over TCP", async () => {
  await using nsd = await startNsd([{ name: "resolver.test.", text: ZONE }]);
  await using unbound = await startUnbound(nsd.port, "resolver.test.", {
    udp: false,
  });
  const answers = await forwardedThrough(`tcp://127.0.0.1:${unbound.port}`);
  assert.deepEqual(answers, ["192.0.2.10"]);
});

/**
 * Asks through Unbound serving TLS (and HTTPS with `https`) with a test CA's
 * certificate, kudurru trusting that CA; `server` names the URL to forward
 * to from Unbound's ports.
 */
async function forwardedOverTls(
  server: (unbound: RunningUnbound) => string,
  https = false,
): Promise<string[]> {
  const certs = await makeTestCertificates();
  const dir = await Deno.makeTempDir({ prefix: "kudurru-tls-ca-" });
  try {
    const caFile = join(dir, "ca.pem");
    await Deno.writeTextFile(caFile, certs.caCert);
    await using nsd = await startNsd([{ name: "resolver.test.", text: ZONE }]);
    await using unbound = await startUnbound(nsd.port, "resolver.test.", {
      tls: { cert: certs.cert, key: certs.key },
      https,
    });
    // Deno adds DENO_CERT to the roots it trusts (Deno.connectTls and fetch).
    return await forwardedThrough(server(unbound), { DENO_CERT: caFile });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("resolver forwards to Unbound over DNS-over-TLS, trusting its CA", async () => {
  const answers = await forwardedOverTls((u) => `tls://127.0.0.1:${u.tlsPort}`);
  assert.deepEqual(answers, ["192.0.2.10"]);
});

Deno.test("resolver forwards to Unbound over DNS-over-HTTPS, trusting its CA", async () => {
  const answers = await forwardedOverTls(
    (u) => `https://127.0.0.1:${u.httpsPort}/dns-query`,
    true,
  );
  assert.deepEqual(answers, ["192.0.2.10"]);
});
