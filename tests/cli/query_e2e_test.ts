/**
 * `kudurru query` against a real `kudurru serve` with DoT and DoH listeners
 * (`tls: { auto: selfsigned }`) and NSD as its upstream: a local zone's
 * name over UDP, TCP, DoT and DoH; a name the Policy of the loopback
 * clients blocks explained as
 * `Status: blocked (list …)`; a client ID over DoT and DoH putting the
 * client in its ClientGroup, whose Policy blocks a name the others get.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startKudurru, waitForApi } from "../../src/testing/kudurru_server.ts";
import { runCli } from "../../src/cli/run.ts";
import { freePort } from "../../src/testing/free_port.ts";
import { object, phoneGroupObjects } from "../blocking/e2e_helpers.ts";
import { startNsd } from "../interop/peers.ts";
import { bufferIO } from "../../src/cli/command.ts";
import { queryCommand } from "../../src/cli/query.ts";

const ZONE = `$ORIGIN lab.test.
@        300 IN SOA ns1 hostmaster 1 3600 900 1209600 300
@        300 IN NS  ns1
ns1      300 IN A   192.0.2.53
ads      300 IN A   192.0.2.66
`;

const PASSWORD = "correct horse battery staple";

async function query(...args: string[]) {
  const b = bufferIO();
  const code = await queryCommand.run([...args, "--timeout", "3s"], b.io);
  return { code, out: b.stdout(), err: b.stderr() };
}

Deno.test("kudurru query asks a real kudurru over UDP, TCP, DoT and DoH and explains its blocks and client IDs", async () => {
  await using nsd = await startNsd([{ name: "lab.test.", text: ZONE }]);
  const dot = freePort();
  const doh = freePort();
  await using kudurru = await startKudurru({
    objects: [
      object("DNSZone", "local-test", {
        zoneName: "local.test.",
        type: "primary",
      }),
      object("DNSRecordSet", "www", {
        zoneRef: { name: "local-test" },
        endpoints: [{
          dnsName: "www.local.test",
          recordType: "A",
          targets: ["192.0.2.10"],
          recordTTL: 300,
        }],
      }),
      object("BlockList", "kids-ads", {
        sources: [{ inline: "tracker.lab.test\n" }],
      }),
      object("ClientGroup", "loopback", { clients: [{ ip: "127.0.0.1" }] }),
      object("Policy", "loopback", {
        clientGroupRefs: ["loopback"],
        blockListRefs: ["kids-ads"],
        blockMode: "nxdomain",
      }),
      ...phoneGroupObjects("ads.lab.test"),
    ],
    readyZone: "local.test.",
    upstreamPort: nsd.port,
    env: { KUDURRU_ADMIN_PASSWORD: PASSWORD },
    listeners: {
      clientIdDomain: "dns.test",
      dot: [{ address: `127.0.0.1:${dot}`, tls: { auto: "selfsigned" } }],
      doh: [{ address: `127.0.0.1:${doh}`, tls: { auto: "selfsigned" } }],
    },
  });
  const ca = join(kudurru.dataDir, "keys", "dns-ca.crt");
  const plain = ["--server", `127.0.0.1:${kudurru.port}`];
  const tls = ["--tls", "--server", `127.0.0.1:${dot}`, "--ca-file", ca];
  const https = ["--https", "--server", `127.0.0.1:${doh}`, "--ca-file", ca];

  // A local zone's name over every transport, printed as dig does.
  for (
    const [transport, args] of [
      ["udp", plain],
      ["tcp", [...plain, "--tcp"]],
      ["tls", [...tls, "--tls-name", "localhost"]],
      ["https", [...https, "--tls-name", "localhost"]],
    ] as const
  ) {
    const r = await query("www.local.test", "A", ...args);
    assert.equal(r.code, 0, `${transport}: ${r.err}`);
    assert.match(r.out, /status: NOERROR/, r.out);
    assert.match(r.out, /;; flags: qr aa rd/, r.out);
    assert.match(r.out, /^www\.local\.test\.\t300\tIN\tA\t192\.0\.2\.10$/m);
    assert.match(r.out, new RegExp(`;; SERVER: .*\\(${transport}\\)`), r.out);
    assert.match(r.out, /^Status: answered \(NOERROR\)$/m, r.out);
  }

  // A block list of the default Policy: the EDE names the list.
  const blocked = await query("tracker.lab.test", ...plain);
  assert.equal(blocked.code, 0, blocked.err);
  assert.match(blocked.out, /status: NXDOMAIN/, blocked.out);
  assert.match(blocked.out, /; EDE: 15 \(Blocked\): \(blocked by kids-ads\)/);
  assert.match(blocked.out, /^Status: blocked \(list kids-ads\)$/m);
  const json = JSON.parse(
    (await query("tracker.lab.test", ...plain, "-o", "json")).out,
  );
  assert.deepEqual(json.status, { kind: "blocked", list: "kids-ads" });
  assert.equal(json.rcode, "NXDOMAIN");
  assert.equal(json.transport, "udp");
  assert.deepEqual(json.extendedErrors, [
    { code: 15, name: "Blocked", text: "blocked by kids-ads" },
  ]);

  // Client ID "phone" in the DoH path and in the DoT server name: the
  // phones group's Policy blocks ads.lab.test; without it, NSD's answer.
  const dohNoId = await query(
    "ads.lab.test",
    ...https,
    "--tls-name",
    "localhost",
  );
  assert.equal(dohNoId.code, 0, dohNoId.err);
  assert.match(dohNoId.out, /\tA\t192\.0\.2\.66$/m, dohNoId.out);
  assert.doesNotMatch(dohNoId.out, /Status: blocked/);
  const dohPhone = await query(
    "ads.lab.test",
    ...https,
    "--tls-name",
    "localhost",
    "--client-id",
    "phone",
  );
  assert.equal(dohPhone.code, 0, dohPhone.err);
  assert.match(dohPhone.out, /\/dns-query\/phone \(https, client ID phone\)/);
  assert.match(dohPhone.out, /^Status: blocked \(list phone-ads\)$/m);
  const dotPhone = await query(
    "ads.lab.test",
    ...tls,
    "--tls-name",
    "dns.test",
    "--client-id",
    "phone",
  );
  assert.equal(dotPhone.code, 0, dotPhone.err);
  assert.match(dotPhone.out, /^Status: blocked \(list phone-ads\)$/m);
  const dotNoId = await query("ads.lab.test", ...tls, "--tls-name", "dns.test");
  assert.match(dotNoId.out, /^Status: answered \(NOERROR\)$/m, dotNoId.out);

  // A certificate that does not chain to the CA given: no answer, exit 1.
  const wrongCa = await query(
    "www.local.test",
    "--tls",
    "--server",
    `127.0.0.1:${dot}`,
    "--tls-name",
    "localhost",
  );
  assert.equal(wrongCa.code, 1);
  assert.match(wrongCa.err, /cannot ask 127\.0\.0\.1#\d+ over tls: /);

  // --client: what the server would answer another client, through its
  // API's why route, after kudurru login.
  await waitForApi(kudurru.apiUrl);
  const home = await Deno.makeTempDir({ prefix: "kudurru-query-client-" });
  try {
    const env = { XDG_CONFIG_HOME: join(home, "config") };
    const login = bufferIO(`${PASSWORD}\n`, env);
    assert.equal(
      await runCli(
        ["login", "--server", kudurru.apiUrl, "--username", "admin"],
        login.io,
      ),
      0,
      login.stderr(),
    );
    const asked = async (...args: string[]) => {
      const b = bufferIO("", env);
      const code = await queryCommand.run(args, b.io);
      return { code, out: b.stdout(), err: b.stderr() };
    };
    const loopback = await asked("tracker.lab.test", "--client", "127.0.0.1");
    assert.equal(loopback.code, 0, loopback.err);
    assert.match(loopback.out, /^;; What context "\S+" \(http:\/\/127/m);
    assert.match(loopback.out, /^;; QUESTION: tracker\.lab\.test\.? A$/m);
    assert.match(
      loopback.out,
      /^Status: blocked_list \(list kids-ads, rule tracker\.lab\.test\), from blocking$/m,
    );
    assert.match(loopback.out, /^Client groups: default\/loopback$/m);
    // Another address is in the default group only: forwarded, not blocked.
    const other = await asked("tracker.lab.test", "--client", "192.0.2.7");
    assert.equal(other.code, 0, other.err);
    assert.doesNotMatch(other.out, /Status: blocked/);
    assert.match(other.out, /^Client groups: default\/default$/m, other.out);
    assert.match(
      other.out,
      /^Forwarded to: upstream group default \(forward_zone \.\)$/m,
    );
    const json = JSON.parse(
      (await asked("tracker.lab.test", "--client", "127.0.0.1", "-o", "json"))
        .out,
    );
    assert.equal(json.why.status, "blocked_list");
    assert.equal(json.why.list, "kids-ads");
    assert.equal(json.why.client, "127.0.0.1");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
