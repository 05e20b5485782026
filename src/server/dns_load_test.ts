import assert from "node:assert/strict";
import { DnsLoad, QUIET_QUERIES_PER_SECOND } from "./dns_load.ts";

Deno.test("DnsLoad is quiet below the rate over its window, busy above, and quiet again once the burst ages out", () => {
  const clock = { t: 1_000_000 };
  const load = new DnsLoad(() => clock.t);
  assert.equal(load.quiet(), true, "nothing counted");
  load.record(QUIET_QUERIES_PER_SECOND); // one second's worth
  assert.equal(load.quiet(), true, "a third of the window's allowance");
  clock.t += 1000;
  load.record(QUIET_QUERIES_PER_SECOND * 3);
  assert.equal(load.quiet(), false, "4 s worth in 2 s");
  clock.t += 2000;
  assert.equal(load.quiet(), false, "the last burst is still in the window");
  clock.t += 1000;
  assert.equal(load.quiet(), true, "aged out");
  load.record(0);
  load.record(-5);
  assert.equal(load.quiet(), true);
});
