import assert from "node:assert/strict";
import { timingSafeEqual } from "node:crypto";
import fc from "fast-check";
import {
  type ProxyDecision,
  ProxySecretError,
  ProxyTrust,
  ProxyTrustError,
  readProxySecret,
  sameSecret,
} from "./proxy_trust.ts";
import { encodeProxyV2, type ProxyV2Fields } from "./proxy_v2.ts";

const SECRET = new TextEncoder().encode("0123456789abcdef0123456789abcdef");
const QUERY = new Uint8Array([0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]);

/** A UDP over IPv4 header for client 192.0.2.1:5353, then QUERY. */
function datagram(fields: ProxyV2Fields = {}): Uint8Array {
  const header = encodeProxyV2({
    source: { address: "192.0.2.1", port: 5353 },
    destination: { address: "198.51.100.1", port: 53 },
    ...fields,
  });
  const bytes = new Uint8Array(header.length + QUERY.length);
  bytes.set(header);
  bytes.set(QUERY, header.length);
  return bytes;
}

function secretTlv(value = SECRET) {
  return { type: 0xe0, value };
}

/** The decision without the parsed header, for short comparisons. */
function brief(decision: ProxyDecision) {
  if (decision.kind === "proxied") {
    const { address, port, headerLength } = decision;
    return { kind: "proxied", address, port, headerLength };
  }
  if (decision.kind === "drop") return { counter: decision.counter };
  return decision;
}

Deno.test("ProxyTrust takes bytes without a header as the peer's, from anyone", () => {
  const trust = new ProxyTrust({ from: ["127.0.0.1"] });
  const first = trust.datagram("127.0.0.1", 4000, QUERY);
  assert.deepEqual(first, { kind: "direct" });
  // One shared object: nothing allocated for a plain query.
  assert.equal(trust.datagram("203.0.113.9", 4000, QUERY), first);
  const v1 = new TextEncoder().encode("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\n");
  assert.deepEqual(trust.datagram("127.0.0.1", 1, v1), { kind: "direct" });
  assert.deepEqual(trust.datagram("127.0.0.1", 1, new Uint8Array()), {
    kind: "direct",
  });
});

Deno.test("ProxyTrust believes a listed peer's PROXY header: the client and where the query starts", () => {
  const trust = new ProxyTrust({ from: ["127.0.0.1", "::1"] });
  const bytes = datagram();
  const decision = trust.datagram("127.0.0.1", 40000, bytes);
  assert.deepEqual(brief(decision), {
    kind: "proxied",
    address: "192.0.2.1",
    port: 5353,
    headerLength: 28,
  });
  assert.deepEqual(bytes.subarray(28), QUERY);
  const v6 = datagram({
    source: { address: "2001:db8:0:0:0:0:0:7", port: 1 },
    destination: { address: "2001:db8::53", port: 53 },
  });
  assert.deepEqual(brief(trust.datagram("::1", 40000, v6)), {
    kind: "proxied",
    address: "2001:db8::7",
    port: 1,
    headerLength: 52,
  });
});

Deno.test("ProxyTrust drops a header from a peer not listed, well-formed or not", () => {
  const trust = new ProxyTrust({ from: ["127.0.0.1"] });
  assert.deepEqual(brief(trust.datagram("127.0.0.2", 1, datagram())), {
    counter: "proxyUntrusted",
  });
  const bad = datagram();
  bad[12] = 0x31; // version 3
  assert.deepEqual(brief(trust.datagram("127.0.0.2", 1, bad)), {
    counter: "proxyUntrusted",
  });
  assert.deepEqual(brief(trust.datagram("not an address", 1, datagram())), {
    counter: "proxyUntrusted",
  });
});

Deno.test("ProxyTrust drops a listed peer's malformed or cut header", () => {
  const trust = new ProxyTrust({ from: ["127.0.0.1"] });
  const bad = datagram();
  bad[12] = 0x23; // command 3
  const dropped = trust.datagram("127.0.0.1", 1, bad);
  assert.equal(dropped.kind, "drop");
  assert.equal(dropped.kind === "drop" && dropped.counter, "proxyMalformed");
  assert.match(dropped.kind === "drop" ? dropped.reason : "", /command 3/);
  // A datagram is all there is: a header cut short will never complete.
  const cut = datagram().subarray(0, 20);
  assert.deepEqual(brief(trust.datagram("127.0.0.1", 1, cut)), {
    counter: "proxyMalformed",
  });
});

Deno.test("ProxyTrust matches a dual-stack socket's ::ffff: peers to IPv4 entries, and back", () => {
  const v4 = new ProxyTrust({ from: ["127.0.0.1"] });
  assert.equal(v4.trusts("::ffff:127.0.0.1"), true);
  assert.equal(v4.trusts("127.0.0.1"), true);
  assert.equal(v4.trusts("::ffff:127.0.0.2"), false);
  assert.equal(v4.trusts("::1"), false);
  assert.equal(
    v4.datagram("::ffff:127.0.0.1", 1, datagram()).kind,
    "proxied",
  );
  const mapped = new ProxyTrust({ from: ["::ffff:192.0.2.53"] });
  assert.equal(mapped.trusts("192.0.2.53"), true);
  const v6 = new ProxyTrust({ from: ["2001:db8::1"] });
  assert.equal(v6.trusts("2001:db8:0::0:1"), true);
  assert.equal(v6.trusts("2001:db8::2"), false);
});

Deno.test("ProxyTrust with a secret wants it in the first TLV 0xE0", () => {
  const trust = new ProxyTrust({ from: ["127.0.0.1"], secret: SECRET });
  const peer = "127.0.0.1";
  const cases: [string, ProxyV2Fields, string][] = [
    ["no TLV", {}, "proxyUnauthenticated"],
    ["the secret", { tlvs: [secretTlv()] }, "proxied"],
    [
      "after other TLVs",
      {
        tlvs: [{ type: 0x04, value: new Uint8Array(3) }, secretTlv()],
      },
      "proxied",
    ],
    [
      "one octet different",
      { tlvs: [secretTlv(SECRET.map((b, i) => i === 31 ? b ^ 1 : b))] },
      "proxyUnauthenticated",
    ],
    [
      "a prefix of it",
      { tlvs: [secretTlv(SECRET.subarray(0, 31))] },
      "proxyUnauthenticated",
    ],
    [
      "it and more",
      { tlvs: [secretTlv(new Uint8Array([...SECRET, 0]))] },
      "proxyUnauthenticated",
    ],
    ["empty", { tlvs: [secretTlv(new Uint8Array())] }, "proxyUnauthenticated"],
    [
      "under another type",
      { tlvs: [{ type: 0xe1, value: SECRET }] },
      "proxyUnauthenticated",
    ],
    [
      "in a second 0xE0 after a wrong one",
      { tlvs: [secretTlv(new Uint8Array(32)), secretTlv()] },
      "proxyUnauthenticated",
    ],
  ];
  for (const [name, fields, want] of cases) {
    const decision = trust.datagram(peer, 1, datagram(fields));
    assert.equal(
      decision.kind === "drop" ? decision.counter : decision.kind,
      want,
      name,
    );
  }
  // Still only from listed peers, secret or not.
  assert.deepEqual(
    brief(trust.datagram("127.0.0.2", 1, datagram({ tlvs: [secretTlv()] }))),
    { counter: "proxyUntrusted" },
  );
});

Deno.test("sameSecret agrees with node:crypto's timingSafeEqual", () => {
  const near = fc.tuple(
    fc.uint8Array({ minLength: 32, maxLength: 40 }),
    fc.nat(),
  )
    .map(([a, at]) => {
      const b = a.slice();
      b[at % b.length]! ^= 1 << (at % 8);
      return [a, b] as const;
    });
  const same = fc.uint8Array({ maxLength: 40 }).map((a) =>
    [a, a.slice()] as const
  );
  const any = fc.tuple(
    fc.uint8Array({ maxLength: 40 }),
    fc.uint8Array({ maxLength: 40 }),
  );
  fc.assert(
    fc.property(fc.oneof(near, same, any), ([a, b]) => {
      const expected = a.length === b.length && timingSafeEqual(a, b);
      assert.equal(sameSecret(a, b), expected);
    }),
    { numRuns: 2000 },
  );
});

Deno.test("ProxyTrust keeps the peer's address for LOCAL, AF_UNSPEC, AF_UNIX and an unspecified transport; LOCAL needs no secret", () => {
  const open = new ProxyTrust({ from: ["127.0.0.1"] });
  const locked = new ProxyTrust({ from: ["127.0.0.1"], secret: SECRET });
  const unix = new Uint8Array(16 + 216 + 35);
  unix.set(encodeProxyV2({}).subarray(0, 12));
  unix.set([0x21, 0x32, 0, 216 + 35], 12);
  unix.set([0xe0, 0, 32, ...SECRET], 16 + 216);
  const headers: [string, Uint8Array, number][] = [
    ["LOCAL, AF_UNSPEC", encodeProxyV2({ command: "local" }), 16],
    ["LOCAL, AF_INET", datagram({ command: "local" }), 28],
    ["PROXY, AF_UNSPEC", encodeProxyV2({}), 16],
    ["PROXY, AF_INET, UNSPEC", datagram({ protocol: "unspec" }), 28],
  ];
  for (const [name, bytes, length] of headers) {
    assert.deepEqual(brief(open.datagram("127.0.0.1", 999, bytes)), {
      kind: "proxied",
      address: "127.0.0.1",
      port: 999,
      headerLength: length,
    }, name);
    if (name.startsWith("LOCAL")) {
      // dnsdist's health checks: LOCAL, no TLV. It names no client.
      assert.deepEqual(brief(locked.datagram("127.0.0.1", 999, bytes)), {
        kind: "proxied",
        address: "127.0.0.1",
        port: 999,
        headerLength: length,
      }, name);
      // From a stranger, still dropped.
      assert.deepEqual(brief(locked.datagram("127.0.0.9", 999, bytes)), {
        counter: "proxyUntrusted",
      }, name);
    } else {
      // The same authentication as a PROXY header naming a client.
      assert.deepEqual(brief(locked.datagram("127.0.0.1", 999, bytes)), {
        counter: "proxyUnauthenticated",
      }, name);
    }
  }
  const signed = encodeProxyV2({ command: "local", tlvs: [secretTlv()] });
  assert.deepEqual(brief(locked.datagram("::ffff:127.0.0.1", 9, signed)), {
    kind: "proxied",
    address: "::ffff:127.0.0.1",
    port: 9,
    headerLength: 16 + 35,
  });
  assert.deepEqual(brief(locked.datagram("127.0.0.1", 9, unix)), {
    kind: "proxied",
    address: "127.0.0.1",
    port: 9,
    headerLength: 16 + 216 + 35,
  });
});

Deno.test("ProxyTrust.stream asks for more octets until the header is whole", () => {
  const trust = new ProxyTrust({ from: ["127.0.0.1"] });
  const bytes = datagram();
  const seen: unknown[] = [];
  for (const cut of [0, 5, 11, 12, 15, 16, 27]) {
    seen.push(trust.stream("127.0.0.1", 1, bytes.subarray(0, cut)));
  }
  assert.deepEqual(seen, [
    { kind: "incomplete", needed: 16 },
    { kind: "incomplete", needed: 16 },
    { kind: "incomplete", needed: 16 },
    { kind: "incomplete", needed: 16 },
    { kind: "incomplete", needed: 16 },
    { kind: "incomplete", needed: 28 },
    { kind: "incomplete", needed: 28 },
  ]);
  assert.deepEqual(brief(trust.stream("127.0.0.1", 1, bytes)), {
    kind: "proxied",
    address: "192.0.2.1",
    port: 5353,
    headerLength: 28,
  });
  // A DNS-over-TCP length prefix: not a header, whatever comes after.
  assert.deepEqual(trust.stream("127.0.0.1", 1, new Uint8Array([0, 29])), {
    kind: "direct",
  });
  assert.deepEqual(trust.stream("127.0.0.1", 1, new Uint8Array([0x0d, 0])), {
    kind: "direct",
  });
  // A stranger's signature is refused without waiting for the rest.
  assert.deepEqual(brief(trust.stream("127.0.0.9", 1, bytes.subarray(0, 12))), {
    counter: "proxyUntrusted",
  });
  // A header refused from its fixed part does not wait either.
  const huge = bytes.slice(0, 16);
  huge[14] = 0x10;
  assert.deepEqual(brief(trust.stream("127.0.0.1", 1, huge)), {
    counter: "proxyMalformed",
  });
});

Deno.test("ProxyTrust takes prefixes with a secret, refuses them without one", () => {
  const wide = new ProxyTrust({
    from: ["10.0.0.0/8", "fd00::/8"],
    secret: SECRET,
  });
  assert.equal(wide.trusts("10.200.0.1"), true);
  assert.equal(wide.trusts("::ffff:10.0.0.1"), true);
  assert.equal(wide.trusts("11.0.0.1"), false);
  assert.equal(wide.trusts("fd12::1"), true);
  assert.equal(wide.trusts("fe80::1"), false);
  assert.throws(
    () => new ProxyTrust({ from: ["192.168.1.0/24"] }),
    (err) =>
      err instanceof ProxyTrustError &&
      /"192.168.1.0\/24" is wider than one address/.test(err.message),
  );
  // Exact prefixes are single addresses.
  const exact = new ProxyTrust({ from: ["192.0.2.1/32", "2001:db8::1/128"] });
  assert.equal(exact.trusts("192.0.2.1"), true);
  assert.equal(exact.trusts("192.0.2.2"), false);
  assert.equal(exact.trusts("2001:db8::1"), true);
  assert.throws(
    () => new ProxyTrust({ from: ["dnsdist.internal"] }),
    /"dnsdist.internal" is not an IP address or a CIDR prefix/,
  );
  assert.throws(
    () => new ProxyTrust({ from: [], secret: SECRET.subarray(0, 31) }),
    /31 bytes; it needs at least 32/,
  );
});

Deno.test("ProxyTrust remembers peers within a bound and still answers right", () => {
  const trust = new ProxyTrust({ from: ["127.0.0.1"] });
  for (let i = 0; i < 3000; i++) {
    assert.equal(trust.trusts(`10.0.${i >> 8}.${i & 0xff}`), false);
    if (i % 1000 === 0) assert.equal(trust.trusts("127.0.0.1"), true);
  }
  assert.equal(trust.trusts("127.0.0.1"), true);
});

Deno.test("ProxyTrust crosses postMessage as its init and decides the same there", async () => {
  for (
    const trust of [
      new ProxyTrust({ from: ["127.0.0.1"] }),
      new ProxyTrust({ from: ["127.0.0.0/8"], secret: SECRET }),
    ]
  ) {
    const channel = new MessageChannel();
    const received = new Promise<MessageEvent>((resolve) =>
      channel.port2.onmessage = resolve
    );
    channel.port1.postMessage(trust.init);
    const { data } = await received;
    channel.port1.close();
    channel.port2.close();
    assert.deepEqual(Object.keys(data).sort(), Object.keys(trust.init).sort());
    const rebuilt = new ProxyTrust(data);
    const bytes = datagram({ tlvs: [secretTlv()] });
    for (const peer of ["127.0.0.1", "127.0.0.2", "192.0.2.9"]) {
      assert.deepEqual(
        brief(rebuilt.datagram(peer, 1, bytes)),
        brief(trust.datagram(peer, 1, bytes)),
      );
    }
  }
});

Deno.test("readProxySecret trims line ends and keeps every other byte", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/secret`;
    const raw = new Uint8Array([0x20, ...SECRET, 0x00, 0x0d, 0x0a, 0x0a]);
    await Deno.writeFile(path, raw);
    assert.deepEqual(await readProxySecret(path), raw.subarray(0, 34));
    await Deno.writeFile(path, new Uint8Array([...SECRET, 0x0d, 0x0a]));
    assert.deepEqual(await readProxySecret(path), SECRET);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readProxySecret names the file and the problem", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/short`;
    // 31 bytes and a newline: the newline does not count.
    await Deno.writeFile(path, new Uint8Array([...SECRET.subarray(1), 0x0a]));
    await assert.rejects(
      readProxySecret(path),
      (err) =>
        err instanceof ProxySecretError &&
        err.message.includes(`"${path}"`) &&
        /the secret is 31 bytes.*at least 32/.test(err.message),
    );
    await Deno.writeFile(path, new TextEncoder().encode("\r\n\r\n"));
    await assert.rejects(readProxySecret(path), /the secret is 0 bytes/);
    const missing = `${dir}/missing`;
    await assert.rejects(
      readProxySecret(missing),
      (err) =>
        err instanceof ProxySecretError &&
        err.message ===
          `listeners.proxyProtocolSecretFile "${missing}": cannot read it: no such file`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
