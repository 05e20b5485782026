import assert from "node:assert/strict";
import { memoryLogger } from "../log/logger.ts";
import { HOUR_MS, MINUTE_MS } from "./settings.ts";
import { WriteOutage } from "./write_outage.ts";

Deno.test("write outage summaries come a minute apart, then twice as far apart, up to an hour", () => {
  const logger = memoryLogger();
  let now = 0;
  const totals = { failedBatches: 0, failedOpens: 0, dropped: 0 };
  const outage = new WriteOutage(logger, () => now, () => ({ ...totals }));
  const summaries: number[] = [];
  // A failure every ten seconds for a day.
  for (; now <= 24 * HOUR_MS; now += 10_000) {
    totals.failedBatches++;
    const before = logger.lines.length;
    outage.failed("warn", "Cannot write a query-log batch; will retry", "full");
    if (logger.lines.length > before && now > 0) summaries.push(now);
  }
  const gaps = summaries.map((t, i) => t - (summaries[i - 1] ?? 0));
  assert.deepEqual(
    gaps.slice(0, 7),
    [1, 2, 4, 8, 16, 32, 60].map((m) => m * MINUTE_MS),
  );
  assert.ok(gaps.slice(7).every((gap) => gap === HOUR_MS));
  const last = JSON.parse(logger.lines.at(-1)!);
  assert.equal(last.msg, "The query log still cannot be written");
  assert.equal(last.failedBatches, summaries.at(-1)! / 10_000 + 1);
  assert.equal(last.lastError, "full");

  outage.succeeded();
  const done = JSON.parse(logger.lines.at(-1)!);
  assert.equal(done.msg, "The query log works again");
  assert.equal(done.seconds, now / 1000);
  assert.equal(outage.active, false);
});
