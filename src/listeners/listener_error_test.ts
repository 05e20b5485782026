import assert from "node:assert/strict";
import { describeBindError, ListenerError } from "./listener_error.ts";

Deno.test("describeBindError says why and what to do", async (t) => {
  const cases: [string, string, string][] = [
    [
      "PermissionDenied",
      "0.0.0.0:53",
      "Cannot listen on 0.0.0.0:53/udp: permission denied; ports below 1024 " +
      "need root or CAP_NET_BIND_SERVICE (or set listeners.dns to a port such as 5353)",
    ],
    [
      "AddrInUse",
      "0.0.0.0:53",
      "Cannot listen on 0.0.0.0:53/udp: address in use; another DNS server " +
      "(systemd-resolved, dnsmasq, another kudurru) is using it",
    ],
    [
      "AddrNotAvailable",
      "192.0.2.1:53",
      "Cannot listen on 192.0.2.1:53/udp: address not available; it is not an " +
      "address of this host (use 0.0.0.0 or [::] to listen on every address)",
    ],
    [
      "Other",
      "0.0.0.0:53",
      "Cannot listen on 0.0.0.0:53/udp: something odd (os error 1)",
    ],
  ];
  for (const [code, address, want] of cases) {
    await t.step(code, () => {
      assert.equal(
        describeBindError(address, "udp", code, "something odd (os error 1)"),
        want,
      );
    });
  }
});

Deno.test("ListenerError carries its name and code", () => {
  const err = new ListenerError("Cannot listen", "AddrInUse");
  assert.equal(err.name, "ListenerError");
  assert.equal(err.code, "AddrInUse");
  assert.ok(err instanceof Error);
});
