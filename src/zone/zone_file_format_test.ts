import assert from "node:assert/strict";
import { join } from "node:path";
import { formatZoneFile } from "./zone_file_format.ts";
import { zoneFromText } from "../testing/zone_text.ts";
import { EXAMPLE_ORG } from "./testdata/lookup_zones.ts";
import { buildZoneContent } from "./content.ts";
import { NOW, recordSet, zone } from "./testdata/zone_objects.ts";

const SMALL = zoneFromText("example.org.", [
  "example.org. 300 IN SOA ns1.example.org. hostmaster.example.org. 9 3600 900 1209600 300",
  "example.org. 300 IN A 192.0.2.1",
  "example.org. 300 IN NS ns1.example.org.",
  "www.example.org. 60 IN A 192.0.2.2",
  "a.example.org. 60 IN TYPE65400 \\# 2 ABCD",
]);

Deno.test("zone file format: $ORIGIN, $TTL, the SOA, the apex NS, then canonical order", () => {
  assert.equal(
    formatZoneFile(SMALL, { defaultTTL: 300, comments: ["zone example.org."] }),
    [
      "; zone example.org.",
      "$ORIGIN example.org.",
      "$TTL 300",
      "example.org. 300 IN SOA ns1.example.org. hostmaster.example.org. 9 3600 900 1209600 300",
      "example.org. 300 IN NS ns1.example.org.",
      "example.org. 300 IN A 192.0.2.1",
      "a.example.org. 60 IN TYPE65400 \\# 2 ABCD",
      "www.example.org. 60 IN A 192.0.2.2",
      "",
    ].join("\n"),
  );
});

/** nsd-checkzone's complaint about `text`, null when it loads; undefined without NSD. */
async function nsdCheck(
  origin: string,
  text: string,
): Promise<string | null | undefined> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-zonefile-" });
  try {
    const file = join(dir, "zone");
    await Deno.writeTextFile(file, text);
    const out = await new Deno.Command("nsd-checkzone", {
      args: [origin, file],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (out.success) return null;
    const decode = new TextDecoder();
    return decode.decode(out.stdout) + decode.decode(out.stderr);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("zone file format: NSD loads what we export (nsd-checkzone, when installed)", async (t) => {
  const built = buildZoneContent(
    zone({}, 2024010101),
    [recordSet("all", [
      { dnsName: "example.org", recordType: "TXT", targets: ["raw; text"] },
      {
        dnsName: "example.org",
        recordType: "MX",
        targets: ["10 mail.example.org"],
      },
      { dnsName: "mail.example.org", recordType: "A", targets: ["192.0.2.25"] },
      { dnsName: "ns1.example.org", recordType: "A", targets: ["192.0.2.53"] },
      {
        dnsName: "*.w.example.org",
        recordType: "AAAA",
        targets: ["2001:db8::1"],
      },
      {
        dnsName: "svc.example.org",
        recordType: "SVCB",
        targets: ["1 . alpn=h2,h3 port=8443"],
      },
      {
        dnsName: "ds.example.org",
        recordType: "TYPE43",
        targets: ["\\# 4 01020304"],
      },
      {
        dnsName: "caa.example.org",
        recordType: "CAA",
        targets: ['0 issue "ca.example"'],
      },
    ])],
    NOW,
  );
  for (
    const [name, content] of [["lookup zone", EXAMPLE_ORG], [
      "built zone",
      built.content,
    ]] as const
  ) {
    await t.step(name, async () => {
      const problem = await nsdCheck(
        content.name,
        formatZoneFile(content, { defaultTTL: 300, comments: ["a test"] }),
      );
      if (problem === undefined) return; // NSD is not installed here
      assert.equal(problem, null);
    });
  }
});
