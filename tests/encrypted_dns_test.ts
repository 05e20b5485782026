/**
 * Encrypted DNS end to end, through a real `kudurru serve` with
 * `tls: { auto: selfsigned }`: kdig over DoT trusting the CA kudurru made
 * in keys/, a client ID in the server name putting the client in its
 * ClientGroup (whose Policy blocks a name the others get), and the
 * transport in the query log. NSD is the upstream for lab.test.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startKudurru } from "../src/testing/kudurru_server.ts";
import { freePort } from "../src/testing/free_port.ts";
import { connectDoq } from "../src/listeners/doq_client.ts";
import { startNsd } from "./interop/peers.ts";
import {
  cli,
  eventually,
  object,
  phoneGroupObjects,
} from "./blocking/e2e_helpers.ts";
import { makeTestCertificates } from "../src/upstream/testdata/certs.ts";
import {
  answerRecords,
  buildQuery,
  decodeResponse,
  frames,
  readFrame,
  within,
  writeAll,
} from "../src/testing/dns_client.ts";

const ZONE = `$ORIGIN lab.test.
@        300 IN SOA ns1 hostmaster 1 3600 900 1209600 300
@        300 IN NS  ns1
ns1      300 IN A   192.0.2.53
www      300 IN A   192.0.2.10
ads      300 IN A   192.0.2.66
`;

async function kdig(args: string[]): Promise<string> {
  const out = await new Deno.Command("kdig", {
    args: [...args, "+timeout=3", "+retry=0"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout) +
    new TextDecoder().decode(out.stderr);
}

Deno.test("kudurru serves DoT, DoQ and DoH with a self-signed CA, and a client ID in the server name or the DoH path selects the client's group", async () => {
  await using nsd = await startNsd([{ name: "lab.test.", text: ZONE }]);
  const dot = freePort();
  const doq = freePort();
  const doh = freePort();
  await using kudurru = await startKudurru({
    objects: [
      object("DNSZone", "local-test", {
        zoneName: "local.test.",
        type: "primary",
      }),
      ...phoneGroupObjects("ads.lab.test"),
    ],
    readyZone: "local.test.",
    upstreamPort: nsd.port,
    listeners: {
      clientIdDomain: "dns.test",
      dot: [{ address: `127.0.0.1:${dot}`, tls: { auto: "selfsigned" } }],
      doq: [{ address: `127.0.0.1:${doq}`, tls: { auto: "selfsigned" } }],
      doh: [{ address: `127.0.0.1:${doh}`, tls: { auto: "selfsigned" } }],
    },
  });
  const ca = join(kudurru.dataDir, "keys", "dns-ca.crt");
  const tls = (sni?: string) => [
    "@127.0.0.1",
    "-p",
    String(dot),
    `+tls-ca=${ca}`,
    `+tls-hostname=${sni ?? "localhost"}`,
    ...(sni ? [`+tls-sni=${sni}`] : []),
  ];

  const www = await kdig([...tls(), "www.lab.test", "A"]);
  assert.match(www, /status: NOERROR/, www);
  assert.match(www, /192\.0\.2\.10/, www);
  // A padded query gets a padded answer (RFC 7830), 468-octet blocks.
  const padded = await kdig([...tls(), "+padding", "www.lab.test", "A"]);
  const size = Number(/Received (\d+) B/.exec(padded)?.[1]);
  assert.equal(size % 468, 0, padded);

  // No client ID: the default group, which does not block ads.lab.test.
  const plain = await kdig([...tls(), "ads.lab.test", "A"]);
  assert.match(plain, /192\.0\.2\.66/, plain);
  // phone.dns.test names client ID "phone": the phones group blocks it.
  const phone = await kdig([...tls("phone.dns.test"), "ads.lab.test", "A"]);
  assert.match(phone, /status: NXDOMAIN/, phone);

  // DoQ (RFC 9250): the same CA; the client ID from the server name too.
  // No DoQ client is packaged for Debian 12 (kdig 3.2 has no +quic): the
  // client is Deno's QUIC (src/listeners/doq_client.ts).
  const caCert = await Deno.readTextFile(ca);
  const askDoq = async (serverName: string, name: string) => {
    const client = await connectDoq({
      hostname: "127.0.0.1",
      port: doq,
      caCerts: [caCert],
      serverName,
    });
    try {
      const [answer] = await client.query(buildQuery(0, name));
      assert.ok(answer, "a DoQ answer");
      return decodeResponse(answer);
    } finally {
      client.close();
    }
  };
  assert.deepEqual(
    (await askDoq("localhost", "ads.lab.test")).answers.map((r) => r.data),
    ["192.0.2.66"],
  );
  assert.equal(
    (await askDoq("phone.dns.test", "ads.lab.test")).rcode,
    "NXDOMAIN",
  );

  // DoH (RFC 8484): kdig (POST), BIND's dig (GET), curl over HTTP/2 and
  // HTTP/1.1; the client ID is the last path segment.
  const https = (path: string) => [
    "@127.0.0.1",
    "-p",
    String(doh),
    `+https=${path}`,
    `+tls-ca=${ca}`,
    "+tls-hostname=localhost",
  ];
  const dohPlain = await kdig([...https("/dns-query"), "ads.lab.test", "A"]);
  assert.match(dohPlain, /192\.0\.2\.66/, dohPlain);
  const dohPhone = await kdig([
    ...https("/dns-query/phone"),
    "ads.lab.test",
    "A",
  ]);
  assert.match(dohPhone, /status: NXDOMAIN/, dohPhone);
  const dig = await new Deno.Command("dig", {
    args: [
      "@127.0.0.1",
      "-p",
      String(doh),
      "+https",
      `+tls-ca=${ca}`,
      "+tls-hostname=localhost",
      "+tries=1",
      "+time=3",
      "www.lab.test",
      "A",
    ],
    stdout: "piped",
  }).output();
  const digText = new TextDecoder().decode(dig.stdout);
  assert.match(digText, /status: NOERROR/, digText);
  assert.match(digText, /192\.0\.2\.10/, digText);
  for (const version of ["--http2", "--http1.1"]) {
    const out = await new Deno.Command("curl", {
      args: [
        "-s",
        version,
        "--cacert",
        ca,
        "-o",
        "/dev/null",
        "-w",
        "%{http_code} %{content_type} %{http_version}",
        "-D",
        "-",
        // www.lab.test A, ID 0 (RFC 8484 §4.1), base64url without padding.
        `https://localhost:${doh}/dns-query?dns=AAABAAABAAAAAAAAA3d3dwNsYWIEdGVzdAAAAQAB`,
      ],
      stdout: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assert.match(text, /200 application\/dns-message [12]/, text);
    assert.match(text, /cache-control: max-age=\d+/i, text);
  }

  await eventually(
    "the DoT, DoQ and DoH queries are in the query log",
    async () => {
      const log = await cli(
        "querylog",
        "--domain",
        "ads.lab.test",
        "-o",
        "json",
        "--data-dir",
        kudurru.dataDir,
      );
      const { events } = JSON.parse(log) as {
        events: { transport: string }[];
      };
      const transports = events.map((e) => e.transport).sort();
      return transports.join() === "doh,doh,doq,doq,dot,dot";
    },
  );
});

Deno.test("kudurru serves a rotated certificate to new DoT connections while an open one goes on, and keeps the old one over a half-rotated pair", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-rotate-" });
  try {
    const first = await makeTestCertificates();
    const certFile = join(dir, "tls.crt");
    const keyFile = join(dir, "tls.key");
    await Deno.writeTextFile(certFile, first.cert);
    await Deno.writeTextFile(keyFile, first.key);
    const dot = freePort();
    await using kudurru = await startKudurru({
      objects: [
        object("DNSZone", "local-test", {
          zoneName: "local.test.",
          type: "primary",
        }),
      ],
      readyZone: "local.test.",
      upstreamPort: freePort(),
      listeners: {
        dot: [{ address: `127.0.0.1:${dot}`, tls: { certFile, keyFile } }],
      },
    });
    const connect = (caCert: string) =>
      Deno.connectTls({ hostname: "localhost", port: dot, caCerts: [caCert] });
    const ask = async (conn: Deno.Conn, id: number) => {
      await writeAll(conn, frames(buildQuery(id, "local.test", "SOA")));
      const frame = await within(readFrame(conn), 3000);
      assert.ok(frame, "no answer");
      return answerRecords(frame).id;
    };
    using open = await connect(first.caCert);
    assert.equal(await ask(open, 1), 1);

    // Half-rotated: the new certificate, the old key. Still the old pair.
    const second = await makeTestCertificates();
    await Deno.writeTextFile(certFile, second.cert);
    await new Promise((r) => setTimeout(r, 1500));
    using stillOld = await connect(first.caCert);
    assert.equal(await ask(stillOld, 2), 2);

    // The key follows: new connections get the new certificate.
    await Deno.writeTextFile(keyFile, second.key);
    await eventually("the new certificate is served", async () => {
      try {
        using fresh = await connect(second.caCert);
        return await ask(fresh, 3) === 3;
      } catch {
        return false;
      }
    });
    // The connection opened first is still served.
    assert.equal(await ask(open, 4), 4);
    assert.match(
      kudurru.output(),
      /is not the key of the certificate/,
      "the half-rotated pair was logged",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
