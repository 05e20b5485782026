import assert from "node:assert/strict";
import { benchQueryFile } from "./bench_zone.ts";
import { cappedNote } from "./qps_cap.ts";
import { medianSummary, roundOrder, type RoundRow } from "./rounds.ts";

const row = (server: string, qps: number): RoundRow => ({
  server,
  transport: "udp",
  qps,
  cpuMicrosPerQuery: 1e6 / qps,
});

Deno.test("rounds alternate the servers' order", () => {
  assert.deepEqual(roundOrder(["a", "b", "c"], 0), ["a", "b", "c"]);
  assert.deepEqual(roundOrder(["a", "b", "c"], 1), ["c", "b", "a"]);
  assert.deepEqual(roundOrder(["a", "b", "c"], 2), ["a", "b", "c"]);
});

Deno.test("the summary takes each round's ratio, then the median", () => {
  const lines = medianSummary([
    [row("kudurru", 90), row("kudurru-nolog", 100)],
    [row("kudurru", 60), row("kudurru-nolog", 200)],
    [row("kudurru", 95), row("kudurru-nolog", 190)],
  ]);
  const nolog = lines.find((l) => l.startsWith("kudurru-nolog"))!;
  // Rounds' ratios 0.90, 0.30, 0.50: median 0.50 (the medians' ratio, 90 /
  // 190, would be 0.47); the median rate 190.
  assert.match(nolog, /\s190\s/);
  assert.match(nolog, /0\.50 \(0\.90, 0\.30, 0\.50\)$/);
  const kudurru = lines.find((l) => l.startsWith("kudurru "))!;
  assert.match(kudurru, /\s90\s.*-$/);
});

Deno.test("a rate at the --qps cap is named", () => {
  assert.deepEqual(cappedNote([row("nsd", 150_000)], 200_000), []);
  assert.match(
    cappedNote([row("nsd", 199_992), row("kudurru", 90_000)], 200_000)[0]!,
    /^note: nsd answered at the --qps cap \(200000\)/,
  );
});

Deno.test("the query file asks most of the zone's names", () => {
  const names = new Set(
    benchQueryFile().trim().split("\n").map((line) => line.split(" ")[0]),
  );
  // 20,000 random draws over 10,000 names (and their variants): ~6,000.
  assert.ok(names.size > 5000, `${names.size} distinct names`);
});
