import assert from "node:assert/strict";
import { MAX_ENDPOINTS } from "../../src/api/v1alpha1/dnsrecordset.ts";
import {
  CHANGED_ADDRESS,
  CHANGED_NAME,
  transferEndpoints,
  transferObjectFiles,
  transferRecordSets,
  transferZoneFile,
} from "./transfer_zone.ts";

const recordLines = (text: string) =>
  text.split("\n").filter((l) => l !== "" && !l.startsWith("$"));

Deno.test("the zone holds exactly the records asked for, SOA and NS included", () => {
  for (const records of [10, 1001, 100_000]) {
    const endpoints = transferEndpoints(records);
    assert.equal(endpoints.length, records - 2);
    assert.ok(endpoints.every((e) => e.targets.length === 1));
    assert.equal(recordLines(transferZoneFile(records, 5)).length, records);
  }
});

Deno.test("the mix: A on every host, AAAA, TXT, MX and CNAME on some", () => {
  const counts = new Map<string, number>();
  for (const e of transferEndpoints(100_000)) {
    counts.set(e.recordType, (counts.get(e.recordType) ?? 0) + 1);
  }
  assert.deepEqual(Object.fromEntries(counts), {
    A: 66_665, // hosts h0-h66663 and ns1
    AAAA: 16_666,
    TXT: 6_666,
    MX: 3_334,
    CNAME: 6_667,
  });
});

Deno.test("record sets respect the endpoint limit and the 4 MiB objects.d file cap", () => {
  const sets = transferRecordSets(100_000);
  assert.equal(sets.length, 100);
  assert.ok(sets.every((s) => s.spec!.endpoints.length <= MAX_ENDPOINTS));
  const files = transferObjectFiles(100_000);
  assert.equal(Object.keys(files).length, 10);
  assert.deepEqual(Object.values(files).flat(), sets);
});

Deno.test("the change replaces h1's address and nothing else, in the first file", () => {
  const before = transferEndpoints(5000);
  const after = transferEndpoints(5000, true);
  const differ = before.flatMap((e, i) =>
    JSON.stringify(e) === JSON.stringify(after[i])
      ? []
      : [{ was: e, now: after[i]! }]
  );
  assert.equal(differ.length, 1);
  assert.equal(differ[0]!.was.dnsName, CHANGED_NAME);
  assert.deepEqual(differ[0]!.now.targets, [CHANGED_ADDRESS]);
  const [first, ...rest] = Object.entries(transferObjectFiles(5000, true));
  assert.equal(
    JSON.stringify(first).includes(CHANGED_ADDRESS) &&
      !JSON.stringify(rest).includes(CHANGED_ADDRESS),
    true,
  );
  const file = transferZoneFile(5000, 6, true);
  assert.match(file, /^h1\.transfer\.test\. 300 IN A 198\.51\.100\.1$/m);
  assert.match(file, / SOA \S+ \S+ 6 /);
});
