import assert from "node:assert/strict";
import { bufferIO } from "./command.ts";
import { runImportDnsmasq } from "./config_import_dnsmasq.ts";
import { upstreamsSchema } from "../config/schema_resolver.ts";
import {
  compileConditional,
  longestConditional,
} from "../stages/upstream/routing.ts";

// Lines dnsmasq 2.90 takes (`dnsmasq --test`) and forwards as written.
const DNSMASQ_CONF = `no-resolv
server=127.0.0.1#33941
server=/.dotted.example/127.0.0.1#44869
server=/commented.example/127.0.0.1#44869 # the AD server
rev-server=192.168.1.7,127.0.0.1
`;

Deno.test("config import-dnsmasq imports what dnsmasq reads, and the result routes as dnsmasq does", () => {
  const b = bufferIO();
  const code = runImportDnsmasq(
    ["/d.conf", "-o", "json"],
    b.io,
    () => DNSMASQ_CONF,
  );
  assert.equal(code, 0, b.stderr());
  const { upstreams } = JSON.parse(b.stdout());
  const settings = upstreamsSchema.parse(upstreams);
  const table = compileConditional(settings.conditional);
  const want: [string, string[]][] = [
    ["host.dotted.example.", ["127.0.0.1:44869"]],
    ["host.commented.example.", ["127.0.0.1:44869"]],
    ["7.1.168.192.in-addr.arpa.", ["127.0.0.1"]],
    ["www.example.org.", ["127.0.0.1:33941"]],
  ];
  for (const [name, servers] of want) {
    const group = longestConditional(name, table)?.group ?? "default";
    assert.deepEqual(settings.groups[group]?.servers, servers, name);
  }
});
