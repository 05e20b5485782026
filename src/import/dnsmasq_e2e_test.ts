/**
 * End to end: a dnsmasq configuration imported and served by a real kudurru
 * (objects in objects.d, settings merged into kudurru.yaml). The imported
 * upstream addresses are replaced by a loopback port so nothing leaves the
 * machine; the checked names are all answered locally (records and blocks).
 */
import nodeAssert from "node:assert/strict";
import { join } from "node:path";
import { importDnsmasq } from "./dnsmasq.ts";
import { startKudurru } from "../testing/kudurru_server.ts";
import { freePort } from "../testing/free_port.ts";
import { query } from "../testing/dns_client.ts";

const CONFIG = [
  "no-resolv",
  "server=192.0.2.53",
  "server=/corp.example/192.0.2.54",
  "address=/nas.example/10.0.0.5",
  "address=/ads.example/0.0.0.0",
  "address=/tracker.example/",
  "host-record=laptop.home.example,192.168.0.10,2001:db8::10",
  "cname=printer.home.example,laptop.home.example",
].join("\n");

/** The imported upstreams, every server replaced by the loopback stand-in. */
function loopbackUpstreams(
  upstreams: Record<string, unknown>,
  port: number,
): Record<string, unknown> {
  const groups = upstreams.groups as Record<string, { servers: string[] }>;
  return {
    ...upstreams,
    groups: Object.fromEntries(
      Object.entries(groups).map(([name, g]) => [
        name,
        { ...g, servers: [`127.0.0.1:${port}`] },
      ]),
    ),
    bootstrap: [`127.0.0.1:${port}`],
  };
}

Deno.test({
  name: "imported dnsmasq config answers from a real kudurru",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "kudurru-dnsmasq-e2e-" });
    const file = join(dir, "dnsmasq.conf");
    await Deno.writeTextFile(file, CONFIG);
    const result = await importDnsmasq(file);
    await Deno.remove(dir, { recursive: true });
    const upstreamPort = freePort();
    const upstreams = loopbackUpstreams(
      result.settings.upstreams as Record<string, unknown>,
      upstreamPort,
    );
    nodeAssert.ok(
      JSON.stringify(upstreams).includes("corp.example."),
      "the conditional entry stays",
    );
    const server = await startKudurru({
      objects: result.objects,
      readyZone: "nas.example.",
      upstreamPort,
      extraConfig: { upstreams },
    });
    try {
      const a = async (name: string, type = "A") => {
        const r = await query(server.port, name, type);
        return {
          rcode: r.rcode,
          data: r.answers.filter((x) => x.type === type).map((x) => x.data),
        };
      };
      nodeAssert.deepStrictEqual(await a("nas.example"), {
        rcode: "NOERROR",
        data: ["10.0.0.5"],
      });
      nodeAssert.deepStrictEqual(await a("deep.sub.nas.example"), {
        rcode: "NOERROR",
        data: ["10.0.0.5"],
      });
      nodeAssert.deepStrictEqual(await a("laptop.home.example"), {
        rcode: "NOERROR",
        data: ["192.168.0.10"],
      });
      nodeAssert.deepStrictEqual(await a("laptop.home.example", "AAAA"), {
        rcode: "NOERROR",
        data: ["2001:db8::10"],
      });
      const printer = await query(server.port, "printer.home.example", "A");
      nodeAssert.deepStrictEqual(
        printer.answers.map((x) => `${x.type} ${x.data}`),
        ["CNAME laptop.home.example", "A 192.168.0.10"],
      );
      // Blocked by the imported BlockList through Policy dnsmasq-address.
      nodeAssert.deepStrictEqual(await a("ads.example"), {
        rcode: "NOERROR",
        data: ["0.0.0.0"],
      });
      nodeAssert.deepStrictEqual(await a("www.ads.example"), {
        rcode: "NOERROR",
        data: ["0.0.0.0"],
      });
      nodeAssert.equal((await a("x.tracker.example")).rcode, "NXDOMAIN");
    } finally {
      await server.stop();
    }
  },
});
