import assert from "node:assert/strict";
import { clientIdFromPath, clientIdFromServerName } from "./client_id.ts";

Deno.test("clientIdFromServerName takes one label under the domain", () => {
  const domain = "dns.example.net";
  assert.equal(
    clientIdFromServerName("phone.dns.example.net", domain),
    "phone",
  );
  assert.equal(
    clientIdFromServerName("Phone.DNS.example.net.", domain),
    "phone",
  );
  assert.equal(clientIdFromServerName("dns.example.net", domain), undefined);
  assert.equal(
    clientIdFromServerName("a.b.dns.example.net", domain),
    undefined,
  );
  assert.equal(
    clientIdFromServerName("phone.xdns.example.net", domain),
    undefined,
  );
  assert.equal(clientIdFromServerName("phone.dns.example.net", ""), undefined);
  assert.equal(clientIdFromServerName(null, domain), undefined);
  assert.equal(
    clientIdFromServerName("-x_.dns.example.net", domain),
    undefined,
  );
});

Deno.test("clientIdFromPath: the base path, or one segment below it", () => {
  assert.equal(clientIdFromPath("/dns-query", "/dns-query"), undefined);
  assert.equal(clientIdFromPath("/dns-query/", "/dns-query"), undefined);
  assert.equal(clientIdFromPath("/dns-query/laptop", "/dns-query"), "laptop");
  assert.equal(clientIdFromPath("/dns-query/Laptop", "/dns-query"), "laptop");
  assert.equal(clientIdFromPath("/dns-query/a/b", "/dns-query"), null);
  assert.equal(clientIdFromPath("/dns-queryx", "/dns-query"), null);
  assert.equal(clientIdFromPath("/other", "/dns-query"), null);
  assert.equal(clientIdFromPath("/doh/x1", "/doh/"), "x1");
});
