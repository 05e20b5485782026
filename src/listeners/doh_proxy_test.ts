/**
 * The DoH listener behind a reverse proxy: plain HTTP to trusted proxies
 * only, and the client address taken from X-Forwarded-For as far as the
 * proxies that wrote it are trusted. The "proxy" is curl bound to a
 * loopback address of its own (127.0.0.2) with the header set by hand.
 */
import assert from "node:assert/strict";
import { makeTestCertificates } from "../upstream/testdata/certs.ts";
import { answerRecords, buildQuery } from "../testing/dns_client.ts";
import {
  base64Url,
  curl,
  scratchDir,
  startDoh,
} from "./testdata/doh_client.ts";

const PROXY = "127.0.0.2";

function query(name: string): string {
  return `dns=${base64Url(buildQuery(0, name))}`;
}

Deno.test("plain HTTP: a trusted proxy's X-Forwarded-For names the client the handler sees", async () => {
  await using dir = await scratchDir();
  await using s = startDoh({ trustedProxies: [PROXY, "10.0.0.0/8"] });
  const url = `http://127.0.0.1:${s.port}/dns-query`;
  const viaProxy = (args: string[]) =>
    curl(dir.path, ["--interface", PROXY, ...args]);

  // The client wrote 203.0.113.9 itself; the proxies appended the rest.
  const r = await viaProxy([
    "-H",
    "X-Forwarded-For: 203.0.113.9, 198.51.100.7, 10.1.2.3",
    `${url}?${query("client.test")}`,
  ]);
  assert.equal(r.status, 200);
  assert.equal(r.version, "1.1");
  assert.deepEqual(answerRecords(r.body).records, ["TXT 198.51.100.7"]);
  assert.deepEqual(s.handler.clients[0], {
    address: "198.51.100.7",
    port: 0,
    transport: "doh",
  });

  // POST, IPv6 client, and a client ID in the path.
  const file = `${dir.path}/q`;
  await Deno.writeFile(file, buildQuery(0, "client.test"));
  const post = await viaProxy([
    "-H",
    "X-Forwarded-For: 2001:DB8::0:7",
    "-H",
    "Content-Type: application/dns-message",
    "--data-binary",
    `@${file}`,
    `${url}/kitchen`,
  ]);
  assert.equal(post.status, 200);
  assert.deepEqual(s.handler.clients[1], {
    address: "2001:db8::7",
    port: 0,
    transport: "doh",
    clientId: "kitchen",
  });

  // Without the header the proxy itself is the client.
  const bare = await viaProxy([`${url}?${query("client.test")}`]);
  assert.deepEqual(answerRecords(bare.body).records, [`TXT ${PROXY}`]);
  assert.equal(s.handler.clients[2]?.address, PROXY);
  assert.ok((s.handler.clients[2]?.port ?? 0) > 0);
  assert.equal(s.counters.dohBadRequest, 0);
});

Deno.test("plain HTTP: a peer that is not a trusted proxy gets 403, whatever it claims", async () => {
  await using dir = await scratchDir();
  await using s = startDoh({ trustedProxies: [PROXY] });
  const r = await curl(dir.path, [
    "--interface",
    "127.0.0.1",
    "-H",
    `X-Forwarded-For: ${PROXY}`,
    `http://127.0.0.1:${s.port}/dns-query?${query("client.test")}`,
  ]);
  assert.equal(r.status, 403);
  assert.match(new TextDecoder().decode(r.body), /not a trusted proxy/);
  // Not even the path is looked at.
  const other = await curl(dir.path, [
    "--interface",
    "127.0.0.1",
    `http://127.0.0.1:${s.port}/elsewhere`,
  ]);
  assert.equal(other.status, 403);
  assert.equal(s.counters.dohBadRequest, 2);
  assert.equal(s.counters.queries, 0);
  assert.equal(s.handler.clients.length, 0);
});

Deno.test("TLS with trusted proxies: X-Forwarded-For only from them, ignored from anyone else", async () => {
  const certs = await makeTestCertificates();
  await using dir = await scratchDir();
  const ca = dir.caFile(certs);
  await using s = startDoh({
    certificate: { cert: certs.cert, key: certs.key },
    trustedProxies: [PROXY],
  });
  const url = `https://localhost:${s.port}/dns-query?${query("client.test")}`;
  const claimed = ["-H", "X-Forwarded-For: 198.51.100.7"];
  const direct = await curl(dir.path, [
    "--cacert",
    ca,
    "--interface",
    "127.0.0.1",
    ...claimed,
    url,
  ]);
  assert.equal(direct.status, 200);
  assert.deepEqual(answerRecords(direct.body).records, ["TXT 127.0.0.1"]);
  const proxied = await curl(dir.path, [
    "--cacert",
    ca,
    "--interface",
    PROXY,
    ...claimed,
    url,
  ]);
  assert.deepEqual(answerRecords(proxied.body).records, ["TXT 198.51.100.7"]);
  assert.deepEqual(
    s.handler.clients.map((c) => c.address),
    ["127.0.0.1", "198.51.100.7"],
  );
});
