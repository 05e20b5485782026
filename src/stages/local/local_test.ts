import assert from "node:assert/strict";
import type { Request } from "../../pipeline/request.ts";
import type { Response } from "../../pipeline/response.ts";
import type { Snapshot } from "../../pipeline/snapshot.ts";
import { decodeResponse } from "../../testing/decode_response.ts";
import { requestFor, snapshotOf } from "../../testing/fixtures.ts";
import { zoneFromText } from "../../testing/zone_text.ts";
import { createLocalStage } from "./local.ts";
import { loadConfig } from "../../config/load.ts";

const passed: Response = { drop: true, status: "forwarded", stage: "upstream" };

async function serve(req: Request): Promise<Response> {
  return await createLocalStage().serve(req, () => passed);
}

const SOA_10 =
  "10.in-addr.arpa. 10800 IN SOA 10.in-addr.arpa. . 0 28800 7200 604800 10800";
const SOA_LOCALHOST =
  "localhost. 10800 IN SOA localhost. . 0 28800 7200 604800 10800";

const empty = snapshotOf([], [{
  name: ".",
  objectName: "root",
  upstreamGroup: "default",
}]);

interface Case {
  q: string;
  rcode: string;
  answer?: string[];
  authority?: string[];
}

Deno.test("local answers special-use names", async (t) => {
  const cases: Case[] = [
    {
      q: "localhost. A",
      rcode: "NOERROR",
      answer: ["localhost. 10800 IN A 127.0.0.1"],
    },
    {
      q: "LocalHost. AAAA",
      rcode: "NOERROR",
      answer: ["LocalHost. 10800 IN AAAA ::1"],
    },
    {
      q: "foo.localhost. A",
      rcode: "NOERROR",
      answer: ["foo.localhost. 10800 IN A 127.0.0.1"],
    },
    { q: "localhost. MX", rcode: "NOERROR", authority: [SOA_LOCALHOST] },
    { q: "localhost. SOA", rcode: "NOERROR", answer: [SOA_LOCALHOST] },
    {
      q: "localhost. NS",
      rcode: "NOERROR",
      answer: ["localhost. 10800 IN NS localhost."],
    },
    {
      q: "x.invalid. A",
      rcode: "NXDOMAIN",
      authority: ["invalid. 10800 IN SOA invalid. . 0 28800 7200 604800 10800"],
    },
    {
      q: "duckduckgogg42xjoc72x3sjasowoarfbgcmvfimaftt6twagswzczad.onion. A",
      rcode: "NXDOMAIN",
      authority: ["onion. 10800 IN SOA onion. . 0 28800 7200 604800 10800"],
    },
    { q: "1.2.3.10.in-addr.arpa. PTR", rcode: "NXDOMAIN", authority: [SOA_10] },
    { q: "10.in-addr.arpa. PTR", rcode: "NOERROR", authority: [SOA_10] },
    { q: "10.in-addr.arpa. SOA", rcode: "NOERROR", answer: [SOA_10] },
    {
      q: "1.1.20.172.in-addr.arpa. PTR",
      rcode: "NXDOMAIN",
      authority: [
        "20.172.in-addr.arpa. 10800 IN SOA 20.172.in-addr.arpa. . 0 28800 7200 604800 10800",
      ],
    },
    {
      q: "5.1.168.192.in-addr.arpa. PTR",
      rcode: "NXDOMAIN",
      authority: [
        "168.192.in-addr.arpa. 10800 IN SOA 168.192.in-addr.arpa. . 0 28800 7200 604800 10800",
      ],
    },
    {
      q: "1.0.0.127.in-addr.arpa. PTR",
      rcode: "NOERROR",
      answer: ["1.0.0.127.in-addr.arpa. 10800 IN PTR localhost."],
    },
    {
      q: "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.ip6.arpa. PTR",
      rcode: "NOERROR",
      answer: [
        "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.ip6.arpa. 10800 IN PTR localhost.",
      ],
    },
    {
      q: "1.0.0.0.d.f.ip6.arpa. PTR",
      rcode: "NXDOMAIN",
      authority: [
        "d.f.ip6.arpa. 10800 IN SOA d.f.ip6.arpa. . 0 28800 7200 604800 10800",
      ],
    },
    {
      q: "8.b.d.0.1.0.0.2.ip6.arpa. PTR",
      rcode: "NOERROR",
      authority: [
        "8.b.d.0.1.0.0.2.ip6.arpa. 10800 IN SOA 8.b.d.0.1.0.0.2.ip6.arpa. . 0 28800 7200 604800 10800",
      ],
    },
  ];
  for (const c of cases) {
    await t.step(c.q, async () => {
      const req = requestFor(c.q, { snapshot: empty });
      const res = await serve(req);
      assert.equal(res.status, "local_record");
      assert.equal(res.cacheable, false);
      const decoded = decodeResponse(req, res)!;
      assert.equal(decoded.rcode, c.rcode);
      assert.equal(decoded.aa, true);
      assert.deepEqual(decoded.answer, c.answer ?? []);
      assert.deepEqual(decoded.authority, c.authority ?? []);
    });
  }
});

Deno.test("local passes on names outside special zones", async (t) => {
  for (
    const q of [
      "www.example.org. A",
      "8.8.8.8.in-addr.arpa. PTR",
      "1.1.32.172.in-addr.arpa. PTR",
      "local. A",
    ]
  ) {
    await t.step(q, async () => {
      assert.equal(await serve(requestFor(q, { snapshot: empty })), passed);
    });
  }
});

function snapshotWith(zone: string): Snapshot {
  return snapshotOf([
    zoneFromText(zone, [
      `${zone} 3600 IN SOA ns.example.org. h.example.org. 1 7200 3600 1209600 300`,
    ]),
  ], [{ name: ".", objectName: "root", upstreamGroup: "default" }]);
}

Deno.test("local yields to a configured zone at or below the special zone", async (t) => {
  const cases = [
    { zone: "168.192.in-addr.arpa.", q: "5.1.168.192.in-addr.arpa. PTR" },
    { zone: "1.168.192.in-addr.arpa.", q: "5.1.168.192.in-addr.arpa. PTR" },
  ];
  for (const c of cases) {
    await t.step(c.zone, async () => {
      const req = requestFor(c.q, { snapshot: snapshotWith(c.zone) });
      assert.equal(await serve(req), passed);
    });
  }
});

Deno.test("local yields to a forward zone for the special zone", async () => {
  const snapshot = snapshotOf([], [{
    name: "168.192.in-addr.arpa.",
    objectName: "lan",
    upstreamGroup: "router",
  }]);
  const req = requestFor("5.1.168.192.in-addr.arpa. PTR", { snapshot });
  assert.equal(await serve(req), passed);
});

Deno.test("local yields to a conditional-forwarding entry for the special zone", async () => {
  const { config } = loadConfig({
    env: {},
    isRoot: false,
    hostname: "n",
    cwd: "/tmp",
  });
  const upstreams = {
    ...config.upstreams,
    groups: {
      ...config.upstreams.groups,
      router: {
        servers: ["192.0.2.1"],
        strategy: "strict" as const,
        timeout: 2000,
        maxInFlight: 200,
      },
    },
    conditional: { "10.in-addr.arpa": "router" },
  };
  const snapshot: Snapshot = {
    ...empty,
    settings: { upstreams, cache: config.cache, ratelimit: config.ratelimit },
  };
  const req = requestFor("1.0.0.10.in-addr.arpa. PTR", { snapshot });
  assert.equal(await serve(req), passed);
  const other = requestFor("1.1.168.192.in-addr.arpa. PTR", { snapshot });
  assert.equal(decodeResponse(other, await serve(other))?.rcode, "NXDOMAIN");
});

Deno.test("local yields to a conditional entry written with a leading dot", async () => {
  const { config } = loadConfig({
    env: {},
    isRoot: false,
    hostname: "n",
    cwd: "/tmp",
  });
  // dnsmasq's historical spelling, as `config import-dnsmasq` reads it: the
  // upstream stage routes it, so local must not answer NXDOMAIN first.
  const upstreams = {
    ...config.upstreams,
    conditional: { ".10.in-addr.arpa": "default" },
  };
  const snapshot: Snapshot = {
    ...empty,
    settings: { upstreams, cache: config.cache, ratelimit: config.ratelimit },
  };
  const req = requestFor("1.0.0.10.in-addr.arpa. PTR", { snapshot });
  assert.equal(await serve(req), passed);
});

Deno.test("local still answers names a configured zone below the special zone does not cover", async () => {
  const req = requestFor("5.2.168.192.in-addr.arpa. PTR", {
    snapshot: snapshotWith("1.168.192.in-addr.arpa."),
  });
  assert.equal(decodeResponse(req, await serve(req))?.rcode, "NXDOMAIN");
});

Deno.test("local answers over a configured zone above the special zone", async () => {
  const req = requestFor("5.1.168.192.in-addr.arpa. PTR", {
    snapshot: snapshotWith("in-addr.arpa."),
  });
  assert.equal(decodeResponse(req, await serve(req))?.rcode, "NXDOMAIN");
});

Deno.test("local passes special names on before the first snapshot", async () => {
  assert.equal(await serve(requestFor("1.2.3.10.in-addr.arpa. PTR")), passed);
});
