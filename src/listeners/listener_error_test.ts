import assert from "node:assert/strict";
import {
  describeBindError,
  explainDualStackClash,
  ListenerError,
} from "./listener_error.ts";

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

Deno.test("explainDualStackClash names 0.0.0.0 and [::] on one port, and nothing else", () => {
  type Listener = { address: string; protocols: ("udp" | "tcp")[] };
  const inUse = new ListenerError(
    "Cannot listen on 0.0.0.0:53/udp",
    "AddrInUse",
  );
  const v4: Listener = { address: "0.0.0.0:53", protocols: ["udp", "tcp"] };
  const v6: Listener = { address: "[::]:53", protocols: ["udp"] };
  const explained = explainDualStackClash([v4, v6], inUse) as ListenerError;
  assert.ok(explained instanceof ListenerError);
  assert.equal(explained.code, "AddrInUse");
  assert.equal(explained.cause, inUse);
  assert.equal(
    explained.message,
    "Cannot listen on both 0.0.0.0:53 and [::]:53: on this system a socket " +
      "on [::] also takes IPv4 (dual-stack), so the two collide; list only " +
      '"[::]:53" in listeners.dns to serve IPv4 and IPv6 clients (IPv4 ' +
      "clients then arrive as ::ffff: addresses)",
  );
  const unchanged: [string, Listener[], unknown][] = [
    ["other ports", [v4, { ...v6, address: "[::]:5353" }], inUse],
    ["no shared protocol", [{ ...v4, protocols: ["tcp"] }, v6], inUse],
    ["one family only", [v4], inUse],
    ["another error", [v4, v6], new ListenerError("no", "PermissionDenied")],
  ];
  for (const [name, listeners, error] of unchanged) {
    assert.equal(explainDualStackClash(listeners, error), error, name);
  }
});
