import assert from "node:assert/strict";
import type { AccessMode } from "../../api/v1alpha1/dnszone.ts";
import { EDNS_OPTION } from "../../dns/wire/constants.ts";
import type { Response } from "../../pipeline/response.ts";
import { decodeResponse } from "../../testing/decode_response.ts";
import { requestFor, snapshotOf } from "../../testing/fixtures.ts";
import { zoneFromText } from "../../testing/zone_text.ts";
import type { ForwardZone, ZoneContent } from "../../zone/types.ts";
import { createAuthoritativeStage } from "./authoritative.ts";

function zone(
  name: string,
  queryAccess: AccessMode,
  queryACL?: string[],
): ZoneContent {
  return {
    ...zoneFromText(name, [
      `${name} 3600 IN SOA ns1.${name} hostmaster.${name} 7 7200 3600 1209600 300`,
      `${name} 3600 IN NS ns1.${name}`,
      `${name} 3600 IN NS ns.elsewhere.test.`,
      `ns1.${name} 3600 IN A 198.51.100.53`,
      `ns1.${name} 3600 IN AAAA 2001:db8::53`,
      `www.${name} 300 IN A 192.0.2.1`,
    ]),
    access: {
      queryAccess,
      zoneTransfer: "deny",
      ...(queryACL && { queryACL }),
    },
  };
}

const passed: Response = { drop: true, status: "forwarded", stage: "upstream" };

/** What `client` gets for `question`: the rcode, or "passed" on. */
async function ask(
  zones: ZoneContent[],
  question: string,
  client: string,
  forwardZones: ForwardZone[] = [],
) {
  const snapshot = snapshotOf(zones, forwardZones);
  const stage = createAuthoritativeStage();
  const req = requestFor(question, { snapshot, client, edns: {} });
  const res = await stage.serve(req, () => passed);
  if (res === passed) return { rcode: "passed", res, req };
  return { rcode: decodeResponse(req, res)!.rcode, res, req };
}

Deno.test("query access: each mode lets the clients it names ask, and refuses the rest", async (t) => {
  const cases: {
    mode: AccessMode;
    acl?: string[];
    client: string;
    rcode: string;
  }[] = [
    { mode: "allow", client: "203.0.113.9", rcode: "NOERROR" },
    { mode: "deny", client: "127.0.0.1", rcode: "REFUSED" },
    { mode: "allowOnlyPrivate", client: "10.1.2.3", rcode: "NOERROR" },
    { mode: "allowOnlyPrivate", client: "fd00::1", rcode: "NOERROR" },
    { mode: "allowOnlyPrivate", client: "203.0.113.9", rcode: "REFUSED" },
    {
      mode: "allowOnlyZoneNameServers",
      client: "198.51.100.53",
      rcode: "NOERROR",
    },
    {
      mode: "allowOnlyZoneNameServers",
      client: "2001:db8::53",
      rcode: "NOERROR",
    },
    {
      mode: "allowOnlyZoneNameServers",
      client: "198.51.100.54",
      rcode: "REFUSED",
    },
    {
      mode: "useNetworkACL",
      acl: ["!192.0.2.66", "192.0.2.0/24"],
      client: "192.0.2.65",
      rcode: "NOERROR",
    },
    {
      mode: "useNetworkACL",
      acl: ["!192.0.2.66", "192.0.2.0/24"],
      client: "192.0.2.66",
      rcode: "REFUSED",
    },
    {
      mode: "useNetworkACL",
      acl: ["192.0.2.0/24"],
      client: "::ffff:192.0.2.9",
      rcode: "NOERROR",
    },
    {
      mode: "zoneNameServersAndACL",
      acl: ["192.0.2.0/24"],
      client: "198.51.100.53",
      rcode: "NOERROR",
    },
    {
      mode: "zoneNameServersAndACL",
      acl: ["192.0.2.0/24"],
      client: "192.0.2.200",
      rcode: "NOERROR",
    },
    {
      mode: "zoneNameServersAndACL",
      acl: ["192.0.2.0/24"],
      client: "203.0.113.9",
      rcode: "REFUSED",
    },
  ];
  for (const c of cases) {
    await t.step(`${c.mode} ${c.acl ?? ""} from ${c.client}`, async () => {
      const got = await ask(
        [zone("example.org.", c.mode, c.acl)],
        "www.example.org. A",
        c.client,
      );
      assert.equal(got.rcode, c.rcode);
    });
  }
});

Deno.test("query access: a refusal says why in an EDE 18, without AA or records", async () => {
  const { res, req } = await ask(
    [zone("example.org.", "deny")],
    "www.example.org. A",
    "192.0.2.7",
  );
  assert.equal(res.status, "refused");
  assert.equal(res.stage, "authoritative");
  assert.equal(req.zone, "example.org.");
  const decoded = decodeResponse(req, res)!;
  assert.equal(decoded.aa, false);
  assert.deepEqual([decoded.answer, decoded.authority], [[], []]);
  const ede = decoded.opt!.options.find((o) => o.code === EDNS_OPTION.EDE)!;
  assert.equal(ede.data[0]! * 256 + ede.data[1]!, 18);
  assert.equal(
    new TextDecoder().decode(ede.data.subarray(2)),
    "queries for example.org. are not allowed from this address",
  );
});

Deno.test("query access: the zone holding the name decides, a child zone's own policy included", async () => {
  const zones = [
    zone("example.org.", "deny"),
    zone("open.example.org.", "allow"),
  ];
  const refused = await ask(zones, "www.example.org. A", "192.0.2.7");
  assert.equal(refused.rcode, "REFUSED");
  const open = await ask(zones, "www.open.example.org. A", "192.0.2.7");
  assert.equal(open.rcode, "NOERROR");
  const elsewhere = await ask(zones, "www.example.com. A", "192.0.2.7");
  assert.equal(elsewhere.rcode, "passed");
});

Deno.test("query access: a forward zone's policy refuses before anything is forwarded", async () => {
  const forward: ForwardZone = {
    name: "corp.example.",
    objectName: "corp",
    upstreamGroup: "office",
    access: { queryAccess: "allowOnlyPrivate", zoneTransfer: "deny" },
  };
  assert.equal(
    (await ask([], "intranet.corp.example. A", "203.0.113.9", [forward]))
      .rcode,
    "REFUSED",
  );
  assert.equal(
    (await ask([], "intranet.corp.example. A", "192.168.1.20", [forward]))
      .rcode,
    "passed",
  );
});

Deno.test("query access: an answer kept for an allowed client is not given to a refused one", async () => {
  const snapshot = snapshotOf([
    zone("example.org.", "allowOnlyPrivate"),
  ]);
  const stage = createAuthoritativeStage();
  const rcodes: string[] = [];
  for (const client of ["10.0.0.1", "10.0.0.1", "203.0.113.9", "10.0.0.2"]) {
    const req = requestFor("www.example.org. A", { snapshot, client });
    rcodes.push(
      decodeResponse(req, await stage.serve(req, () => passed))!.rcode,
    );
  }
  assert.deepEqual(rcodes, ["NOERROR", "NOERROR", "REFUSED", "NOERROR"]);
  assert.equal(stage.memoStats().hits, 2);
});
