/**
 * A zone file past the API upload's limits (100,000 records, 4 MiB) is
 * imported whole by `kudurru import bind`: the import reads the operator's
 * own file and raises the parser's limits, and parses it in pieces.
 */
import assert from "node:assert/strict";
import { importBind } from "./bind.ts";
import {
  MAX_ZONE_FILE_BYTES,
  MAX_ZONE_FILE_RECORDS,
} from "../zone/zone_file_parse.ts";

Deno.test("importBind: a 150,000-record zone file over the API's limits is imported", async () => {
  const lines = [
    "$TTL 300",
    "@ IN SOA ns1 hostmaster 1 3600 900 1209600 300",
    "@ IN NS ns1",
  ];
  const count = 150_000;
  for (let i = 0; i < count - 2; i++) {
    lines.push(
      `host-${i} IN A 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    );
  }
  const zone = lines.join("\n") + "\n";
  assert.ok(count > MAX_ZONE_FILE_RECORDS);
  assert.ok(zone.length > MAX_ZONE_FILE_BYTES);
  const files: Record<string, string> = {
    "/z/named.conf": 'zone "big.test" { type primary; file "db.big"; };\n',
    "/z/db.big": zone,
  };
  const read = (path: string) =>
    files[path] === undefined
      ? Promise.reject(new Deno.errors.NotFound(path))
      : Promise.resolve(new TextEncoder().encode(files[path]));
  const r = await importBind("/z/named.conf", read);
  assert.deepEqual(r.report.skipped, []);
  const sets = r.objects.filter((o) => o.kind === "DNSRecordSet");
  const endpoints = sets.flatMap((o) =>
    (o.spec as { endpoints: { dnsName: string; targets: string[] }[] })
      .endpoints
  );
  assert.equal(endpoints.length, count - 2);
  assert.equal(sets.length, Math.ceil((count - 2) / 1000));
  const last = endpoints.at(-1)!;
  assert.equal(last.dnsName, `host-${count - 3}.big.test.`);
  assert.match(r.report.mapped.at(-1)!.detail, /with 149998 records/);
});
