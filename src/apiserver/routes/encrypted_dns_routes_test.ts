import assert from "node:assert/strict";
import { opsFixture } from "../testdata/ops_fixture.ts";
import { makeTestCertificates } from "../../upstream/testdata/certs.ts";

/** The profile as Python's plistlib reads it (what Apple's format must parse as). */
async function parsePlist(xml: string): Promise<Record<string, unknown>> {
  const out = await new Deno.Command("python3", {
    args: [
      "-c",
      "import plistlib,sys,json,base64;" +
      "p=plistlib.loads(sys.stdin.buffer.read());" +
      "print(json.dumps(p,default=lambda b: base64.b64encode(b).decode()))",
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = out.stdin.getWriter();
  await writer.write(new TextEncoder().encode(xml));
  await writer.close();
  const { success, stdout, stderr } = await out.output();
  assert.ok(success, new TextDecoder().decode(stderr));
  return JSON.parse(new TextDecoder().decode(stdout));
}

const config = {
  listeners: {
    clientIdDomain: "dns.example.net",
    dot: [{ address: "0.0.0.0:853", tls: { auto: "selfsigned" } }],
    doh: [{
      address: "0.0.0.0:8443",
      path: "/dns-query",
      tls: { auto: "selfsigned" },
    }],
  },
};

Deno.test("the encrypted-DNS profile points a device at DoH with its client ID, and carries the self-signed CA", async () => {
  await using f = await opsFixture({ config });
  const certs = await makeTestCertificates();
  f.selfSignedCa = certs.caCert;
  const res = await f.viewer.request(
    "GET",
    "/api/v1/node/encrypted-dns.mobileconfig?server=dns.example.net&clientId=iphone",
  );
  assert.equal(res.status, 200, String(res.body));
  assert.equal(
    res.headers.get("content-type"),
    "application/x-apple-aspen-config",
  );
  const profile = await parsePlist(res.body);
  assert.equal(profile.PayloadType, "Configuration");
  const [settings, ca] = profile.PayloadContent as Record<string, unknown>[];
  assert.equal(settings!.PayloadType, "com.apple.dnsSettings.managed");
  assert.deepEqual(settings!.DNSSettings, {
    DNSProtocol: "HTTPS",
    ServerURL: "https://dns.example.net:8443/dns-query/iphone",
  });
  assert.equal(ca!.PayloadType, "com.apple.security.root");
  const der = atob(ca!.PayloadContent as string);
  assert.ok(der.length > 100);
  // The same request gives the same identifiers: a reinstall replaces.
  const again = await f.viewer.request(
    "GET",
    "/api/v1/node/encrypted-dns.mobileconfig?server=dns.example.net&clientId=iphone",
  );
  assert.equal(again.body, res.body);
});

Deno.test("the encrypted-DNS profile over TLS names the client under clientIdDomain; bad parameters are 400s", async () => {
  await using f = await opsFixture({ config });
  const tls = await f.admin.request(
    "GET",
    "/api/v1/node/encrypted-dns.mobileconfig?server=dns.example.net&clientId=ipad&protocol=tls",
  );
  assert.equal(tls.status, 200);
  const profile = await parsePlist(tls.body);
  const [settings, ...rest] = profile.PayloadContent as Record<
    string,
    unknown
  >[];
  assert.deepEqual(settings!.DNSSettings, {
    DNSProtocol: "TLS",
    ServerName: "ipad.dns.example.net",
  });
  assert.equal(rest.length, 0, "no CA payload without one");
  for (
    const [query, why] of [
      ["server=not a name", /server must be the host name/],
      ["server=a.example&clientId=Bad_ID", /clientId must be/],
      ["server=a.example&protocol=quic", /protocol/],
      ["server=a.example&port=70000", /port must be/],
    ] as const
  ) {
    const res = await f.admin.request(
      "GET",
      `/api/v1/node/encrypted-dns.mobileconfig?${query}`,
    );
    assert.equal(res.status, 400, query);
    assert.match(JSON.stringify(res.body), why, query);
  }
});

Deno.test("the encrypted-DNS profile says what to configure when the transport is not served", async () => {
  await using f = await opsFixture();
  const res = await f.admin.request(
    "GET",
    "/api/v1/node/encrypted-dns.mobileconfig?server=dns.example.net",
  );
  assert.equal(res.status, 400);
  assert.match(
    JSON.stringify(res.body),
    /serves no DNS over TLS: configure listeners.dot/,
  );
});
