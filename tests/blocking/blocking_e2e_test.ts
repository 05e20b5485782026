/**
 * Blocking end to end, through the DNS listener of a real `kudurru serve`:
 * NSD is the upstream for lab.test., the starter list and the default
 * Policy come from first boot, and a "kids" ClientGroup (127.0.0.2) gets a
 * Policy with an inline list and a list fetched over HTTP; a "tablets"
 * group matches by host name, learned from the PTR record of 127.0.0.3 in a
 * local reverse zone. The client addresses must get the answers their
 * policies say; the temporary disable from the CLI must reach the running
 * server and end again.
 */
import assert from "node:assert/strict";
import { API_VERSION } from "../../src/api/v1alpha1/meta.ts";
import type { KObject } from "../../src/api/v1alpha1/meta.ts";
import { type DecodedResponse, query } from "../../src/testing/dns_client.ts";
import { startKudurru } from "../../src/testing/kudurru_server.ts";
import { startNsd } from "../interop/peers.ts";
import { cli, eventually, object } from "./e2e_helpers.ts";

const ZONE = `$ORIGIN lab.test.
@        300 IN SOA ns1 hostmaster 1 3600 900 1209600 300
@        300 IN NS  ns1
ns1      300 IN A   192.0.2.53
www      300 IN A   192.0.2.10
ads      300 IN A   192.0.2.66
games    300 IN A   192.0.2.67
cdn      300 IN CNAME tracker
tracker  300 IN A   192.0.2.77
`;

const KIDS = "127.0.0.2";
const TABLET = "127.0.0.3";
const GROWN_UP = "127.0.0.1";

/** The EDE INFO-CODE and text of an answer's OPT record, if any. */
function extendedError(res: DecodedResponse) {
  const opt = res.additionals.find((r) => r.type === "OPT");
  // deno-lint-ignore no-explicit-any -- dns-packet's OPT options are untyped
  const ede = (opt as any)?.options?.find((o: { code: number }) =>
    o.code === 15
  );
  if (!ede) return undefined;
  const data: Uint8Array = ede.data;
  return {
    code: (data[0]! << 8) | data[1]!,
    text: new TextDecoder().decode(data.subarray(2)),
  };
}

async function ask(port: number, name: string, from: string, type = "A") {
  return await query(port, name, type, { from, edns: true });
}

Deno.test("blocking answers each client as its policies say: by address, by host name, with lists inline, fetched and embedded", async () => {
  await using nsd = await startNsd([{ name: "lab.test.", text: ZONE }]);
  const lists = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      new Response("! Title: games\n||games.lab.test^\n", {
        headers: { etag: '"v1"' },
      }),
  );
  try {
    await using kudurru = await startKudurru({
      objects: [
        object("DNSZone", "local-test", {
          zoneName: "local.test.",
          type: "primary",
        }),
        object("BlockList", "kids-ads", {
          sources: [{ inline: "ads.lab.test\n||tracker.lab.test^\n" }],
        }),
        object("BlockList", "games", {
          sources: [{ url: `http://127.0.0.1:${lists.addr.port}/games.txt` }],
        }),
        object("ClientGroup", "kids", { clients: [{ ip: KIDS }] }),
        {
          apiVersion: API_VERSION,
          kind: "DNSZone",
          metadata: { name: "loopback-reverse" },
          spec: { zoneName: "0.0.127.in-addr.arpa.", type: "primary" },
        } as KObject,
        object("DNSRecordSet", "loopback-names", {
          zoneRef: { name: "loopback-reverse" },
          endpoints: [{
            dnsName: "3.0.0.127.in-addr.arpa",
            recordType: "PTR",
            targets: ["tablet-7.lan."],
          }],
        }),
        object("ClientGroup", "tablets", {
          clients: [{ hostname: "tablet-*.lan" }],
        }),
        object("Policy", "tablets", {
          clientGroupRefs: ["tablets"],
          blockListRefs: ["games"],
          blockMode: "refused",
        }),
        object("Policy", "kids", {
          clientGroupRefs: ["kids"],
          blockListRefs: ["kids-ads", "games", "starter"],
          blockMode: "nxdomain",
          blockTTL: "2m",
          priority: 10,
        }),
      ],
      readyZone: "local.test.",
      upstreamPort: nsd.port,
    });
    const { port } = kudurru;

    // The grown-up is in the seeded default group: only the starter list.
    const plain = await ask(port, "ads.lab.test.", GROWN_UP);
    assert.equal(plain.rcode, "NOERROR");
    assert.deepEqual(plain.answers.map((r) => r.data), ["192.0.2.66"]);
    const starter = await ask(port, "doubleclick.net.", GROWN_UP);
    assert.deepEqual(starter.answers.map((r) => [r.type, r.data]), [[
      "A",
      "0.0.0.0",
    ]]);
    assert.equal(extendedError(starter)?.code, 15);

    // The kids get NXDOMAIN with an SOA for blockTTL, and the reason.
    const blocked = await ask(port, "ads.lab.test.", KIDS);
    assert.equal(blocked.rcode, "NXDOMAIN");
    assert.equal(blocked.authorities[0]?.type, "SOA");
    assert.equal(blocked.authorities[0]?.ttl, 120);
    assert.deepEqual(extendedError(blocked), {
      code: 15,
      text: "blocked by kids-ads",
    });
    assert.deepEqual(
      (await ask(port, "www.lab.test.", KIDS)).answers.map((r) => r.data),
      ["192.0.2.10"],
    );
    // The CNAME target is on the list: the answer is blocked too.
    const viaCname = await ask(port, "cdn.lab.test.", KIDS);
    assert.equal(viaCname.rcode, "NXDOMAIN", JSON.stringify(viaCname));
    // The fetched list arrives once the leader has downloaded it.
    await eventually(
      "the fetched list blocks games.lab.test",
      async () =>
        (await ask(port, "games.lab.test.", KIDS)).rcode === "NXDOMAIN",
      () => kudurru.output(),
    );
    assert.equal(
      (await ask(port, "games.lab.test.", GROWN_UP)).answers[0]?.data,
      "192.0.2.67",
    );

    // The query log says who asked, what we answered and why.
    const dataDir = kudurru.dataDir;
    await eventually(
      "the blocked query is in the query log",
      async () => {
        const page = JSON.parse(
          await cli(
            "querylog",
            "--status",
            "blocked",
            "--client",
            KIDS,
            "-o",
            "json",
            "--data-dir",
            dataDir,
          ),
        ) as { events: Record<string, unknown>[] };
        const ads = page.events.find((e) => e.qname === "ads.lab.test.");
        if (!ads) return false;
        assert.equal(ads.status, "blocked_list");
        assert.equal(ads.list, "kids-ads");
        assert.equal(ads.rule, "ads.lab.test");
        assert.equal(ads.stage, "blocking");
        assert.deepEqual(ads.groups, ["default/kids"]);
        return true;
      },
      () => kudurru.output(),
    );
    const forwarded = JSON.parse(
      await cli(
        "querylog",
        "--domain",
        "www.lab.test",
        "-o",
        "json",
        "--data-dir",
        dataDir,
      ),
    ) as { events: Record<string, unknown>[] };
    assert.equal(forwarded.events[0]?.status, "forwarded");
    assert.equal(forwarded.events[0]?.answer, "A 192.0.2.10");
    const stats = JSON.parse(
      await cli("stats", "--since", "1h", "-o", "json", "--data-dir", dataDir),
    ) as { topBlockedDomains: { name?: string; domain?: string }[] };
    assert.ok(
      JSON.stringify(stats.topBlockedDomains).includes("ads.lab.test."),
      JSON.stringify(stats),
    );

    // The tablet's host name comes from its PTR record, looked up in the
    // background after its first query; then the tablets policy applies.
    await eventually(
      "the tablet is known by its host name",
      async () =>
        (await ask(port, "games.lab.test.", TABLET)).rcode === "REFUSED",
      () => kudurru.output(),
    );
    assert.equal(
      (await ask(port, "games.lab.test.", GROWN_UP)).rcode,
      "NOERROR",
      "only the tablet",
    );

    // Switched off from the CLI, cluster-wide through the Store; then on.
    assert.match(
      await cli("blocking", "disable", "5m", "--data-dir", kudurru.dataDir),
      /off until/i,
    );
    await eventually(
      "blocking is off",
      async () => (await ask(port, "ads.lab.test.", KIDS)).rcode === "NOERROR",
      () => kudurru.output(),
    );
    await cli("blocking", "enable", "--data-dir", kudurru.dataDir);
    await eventually(
      "blocking is on again",
      async () => (await ask(port, "ads.lab.test.", KIDS)).rcode === "NXDOMAIN",
      () => kudurru.output(),
    );
  } finally {
    await lists.shutdown();
  }
});
