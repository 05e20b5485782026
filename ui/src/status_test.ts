import { deepEqual as assertEquals } from "node:assert/strict";
import { statusGroup, totalsByGroup } from "./status.ts";

Deno.test("statusGroup puts every kind of block, cache and failure in its group", () => {
  assertEquals(statusGroup("blocked_list"), "blocked");
  assertEquals(statusGroup("blocked_service"), "blocked");
  assertEquals(statusGroup("cached_stale"), "cached");
  assertEquals(statusGroup("forwarded"), "forwarded");
  assertEquals(statusGroup("authoritative"), "local");
  assertEquals(statusGroup("timeout_upstream"), "failed");
  assertEquals(statusGroup("a status from a newer server"), "failed");
});

Deno.test("totalsByGroup counts each bucket's statuses by group", () => {
  const counts = totalsByGroup([
    { byStatus: { blocked_list: 2, cached: 3, forwarded: 5 } },
    { byStatus: {} },
    { byStatus: { authoritative: 1, servfail: 4, blocked_service: 1 } },
  ]);
  assertEquals(counts, [
    [2, 0, 1], // blocked
    [3, 0, 0], // cached
    [5, 0, 0], // forwarded
    [0, 0, 1], // local
    [0, 0, 4], // failed
  ]);
});
