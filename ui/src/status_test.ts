import { deepEqual as assertEquals } from "node:assert/strict";
import { stackedByGroup, statusGroup } from "./status.ts";

Deno.test("statusGroup puts every kind of block, cache and failure in its group", () => {
  assertEquals(statusGroup("blocked_list"), "blocked");
  assertEquals(statusGroup("blocked_service"), "blocked");
  assertEquals(statusGroup("cached_stale"), "cached");
  assertEquals(statusGroup("forwarded"), "forwarded");
  assertEquals(statusGroup("authoritative"), "local");
  assertEquals(statusGroup("timeout_upstream"), "failed");
  assertEquals(statusGroup("a status from a newer server"), "failed");
});

Deno.test("stackedByGroup stacks each group on the ones before it", () => {
  const stacked = stackedByGroup([
    { byStatus: { blocked_list: 2, cached: 3, forwarded: 5 } },
    { byStatus: {} },
    { byStatus: { authoritative: 1, servfail: 4, blocked_service: 1 } },
  ]);
  assertEquals(stacked, [
    [2, 0, 1], // blocked
    [5, 0, 1], // + cached
    [10, 0, 1], // + forwarded
    [10, 0, 2], // + local
    [10, 0, 6], // + failed: the bucket's total
  ]);
});
