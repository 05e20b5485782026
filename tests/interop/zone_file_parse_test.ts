/**
 * The zone-file parser (src/zone/zone_file_parse.ts) against the interop
 * corpus: the files NSD and Knot load (zone_file.ts) read back into what
 * kudurru serves from the same objects, and kudurru's own export
 * (src/zone/zone_file_format.ts) reads back into the same RRsets.
 */
import assert from "node:assert/strict";
import { buildZoneContent } from "../../src/zone/content.ts";
import { formatRdata } from "../../src/zone/format.ts";
import { formatZoneFile } from "../../src/zone/zone_file_format.ts";
import { parseZoneFile } from "../../src/zone/zone_file_parse.ts";
import type { RRSet } from "../../src/dns/rrset.ts";
import { RECORD_SETS, renderZoneFile, ZONES } from "./corpus.ts";

const NOW = new Date("2030-01-01T00:00:00Z");

function served(rrsets: RRSet[]): string[] {
  return rrsets.flatMap((r) =>
    r.rdata.map((d) => `${r.name} ${r.ttl} ${r.type} ${formatRdata(d)}`)
  ).sort();
}

/** Parsed records as served lines: one TTL per RRset, the lowest (RFC 2181 §5.2). */
function parsedLines(text: string, origin: string): string[] {
  const parse = parseZoneFile(text, { origin });
  assert.deepEqual(parse.skipped, []);
  const lowest = new Map<string, number>();
  for (const r of parse.records) {
    const key = `${r.owner} ${r.code}`;
    lowest.set(key, Math.min(lowest.get(key) ?? Infinity, r.ttl!));
  }
  const lines = parse.records.map((r) =>
    `${r.owner} ${lowest.get(`${r.owner} ${r.code}`)} ${r.code} ${
      formatRdata(r.rdata)
    }`
  );
  return [...new Set(lines)].sort();
}

Deno.test("interop zone files (as NSD and Knot load them) parse into what kudurru serves", async (t) => {
  for (const zone of ZONES) {
    await t.step(zone.spec!.zoneName, () => {
      const content = buildZoneContent(zone, RECORD_SETS, NOW).content;
      assert.deepEqual(
        parsedLines(renderZoneFile(zone, RECORD_SETS), content.name),
        served(content.rrsets),
      );
    });
  }
});

Deno.test("interop zones exported by kudurru parse back into the same RRsets", async (t) => {
  for (const zone of ZONES) {
    await t.step(zone.spec!.zoneName, () => {
      const content = buildZoneContent(zone, RECORD_SETS, NOW).content;
      const text = formatZoneFile(content, { defaultTTL: 3600 });
      assert.deepEqual(parsedLines(text, content.name), served(content.rrsets));
    });
  }
});
