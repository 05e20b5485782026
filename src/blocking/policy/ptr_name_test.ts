import assert from "node:assert/strict";
import { ptrName } from "./ptr_name.ts";

Deno.test("ptrName", () => {
  assert.equal(ptrName("192.0.2.7"), "7.2.0.192.in-addr.arpa.");
  assert.equal(ptrName("::ffff:192.0.2.7"), "7.2.0.192.in-addr.arpa.");
  assert.equal(
    ptrName("2001:db8::567:89ab"),
    "b.a.9.8.7.6.5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa.",
  );
  assert.throws(() => ptrName("nope"), /not an IP address: "nope"/);
});
