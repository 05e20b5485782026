import assert from "node:assert/strict";
import { memoryLogger } from "../log/logger.ts";
import { snapshotOf } from "../testing/fixtures.ts";
import { zoneFromText } from "../testing/zone_text.ts";
import { createDataPlane } from "./data_plane.ts";
import { ptrLookupThrough } from "./ptr_lookup.ts";

const REVERSE = zoneFromText("2.0.192.in-addr.arpa.", [
  "2.0.192.in-addr.arpa. 3600 IN SOA ns1.home. host.home. 1 7200 3600 1209600 300",
  "2.0.192.in-addr.arpa. 3600 IN NS ns1.home.",
  "7.2.0.192.in-addr.arpa. 3600 IN PTR Laptop.Home.",
]);

Deno.test("ptrLookupThrough asks the handler's own pipeline for the client's name", async () => {
  const { handler } = createDataPlane({
    logger: memoryLogger(),
    queryLog: false,
  });
  handler.setSnapshot(snapshotOf([REVERSE]));
  const lookup = ptrLookupThrough(() => handler);
  assert.equal(await lookup("192.0.2.7"), "laptop.home");
  assert.equal(await lookup("192.0.2.8"), null, "NXDOMAIN in the zone");
  // RFC 6303: private reverse zones answer NXDOMAIN locally, nothing leaves.
  assert.equal(await lookup("10.1.2.3"), null);
  assert.equal(await lookup("not an address"), null);
});

Deno.test("ptrLookupThrough answers null before the handler exists", async () => {
  assert.equal(await ptrLookupThrough(() => undefined)("192.0.2.7"), null);
});
