import assert from "node:assert/strict";
import fc from "fast-check";
import ipaddr from "ipaddr.js";
import {
  encodeProxyV2,
  formatIpv6,
  hasProxyV2Signature,
  parseProxyV2,
  PROXY_V2_MAX_LENGTH,
  PROXY_V2_SIGNATURE,
  type ProxyV2Header,
  type ProxyV2Parse,
} from "./proxy_v2.ts";

const text = new TextEncoder();

function header(parsed: ProxyV2Parse): ProxyV2Header {
  assert.equal(parsed.kind, "header", JSON.stringify(parsed));
  return (parsed as { header: ProxyV2Header }).header;
}

function reason(parsed: ProxyV2Parse): string {
  assert.equal(parsed.kind, "malformed", JSON.stringify(parsed));
  return (parsed as { reason: string }).reason;
}

/** The fixed part with `versionCommand`, `familyProtocol` and `len`. */
function fixed(versionCommand: number, familyProtocol: number, len = 0) {
  const bytes = new Uint8Array(16 + len);
  bytes.set(PROXY_V2_SIGNATURE);
  bytes[12] = versionCommand;
  bytes[13] = familyProtocol;
  bytes[14] = len >> 8;
  bytes[15] = len & 0xff;
  return bytes;
}

Deno.test("parseProxyV2 reads every field of a UDP over IPv4 header", () => {
  // Written out octet by octet, as proxy-protocol.txt §2.2 lays it out.
  const bytes = new Uint8Array([
    ...PROXY_V2_SIGNATURE,
    0x21, // version 2, PROXY
    0x12, // AF_INET, DGRAM
    0x00,
    0x12, // 18 octets follow: 12 of addresses, one TLV of 6
    192,
    0,
    2,
    1, // source
    198,
    51,
    100,
    7, // destination
    0xd4,
    0x31, // source port 54321
    0x00,
    0x35, // destination port 53
    0xe0,
    0x00,
    0x03,
    0x61,
    0x62,
    0x63, // TLV 0xE0 "abc"
    0xff, // first octet of the query after it
  ]);
  assert.deepEqual(parseProxyV2(bytes), {
    kind: "header",
    header: {
      length: 34,
      command: "proxy",
      family: "inet",
      protocol: "dgram",
      source: { address: "192.0.2.1", port: 54321 },
      destination: { address: "198.51.100.7", port: 53 },
      tlvs: [{ type: 0xe0, value: text.encode("abc") }],
    },
  });
});

Deno.test("parseProxyV2 reads TCP over IPv6, addresses in compressed form", () => {
  const bytes = encodeProxyV2({
    protocol: "stream",
    source: { address: "2001:0db8:0000:0000:0001:0000:0000:0001", port: 1 },
    destination: { address: "2001:db8::53", port: 853 },
  });
  assert.equal(bytes[13], 0x21);
  assert.deepEqual(header(parseProxyV2(bytes)), {
    length: 16 + 36,
    command: "proxy",
    family: "inet6",
    protocol: "stream",
    source: { address: "2001:db8::1:0:0:1", port: 1 },
    destination: { address: "2001:db8::53", port: 853 },
    tlvs: [],
  });
});

Deno.test("parseProxyV2 keeps an IPv4-mapped IPv6 source IPv6", () => {
  const bytes = encodeProxyV2({
    source: { address: "::ffff:192.0.2.1", port: 5 },
    destination: { address: "::1", port: 53 },
  });
  const h = header(parseProxyV2(bytes));
  assert.equal(h.family, "inet6");
  assert.deepEqual(h.source, { address: "::ffff:c000:201", port: 5 });
  assert.deepEqual(h.destination, { address: "::1", port: 53 });
});

Deno.test("parseProxyV2 reads LOCAL with AF_UNSPEC: no addresses", () => {
  // dnsdist's health checks send exactly these 16 octets.
  const bytes = fixed(0x20, 0x00);
  assert.deepEqual(header(parseProxyV2(bytes)), {
    length: 16,
    command: "local",
    family: "unspec",
    protocol: "unspec",
    tlvs: [],
  });
});

Deno.test("parseProxyV2 skips a LOCAL header's address block to its TLVs", () => {
  const bytes = encodeProxyV2({
    command: "local",
    source: { address: "10.0.0.1", port: 1000 },
    destination: { address: "10.0.0.2", port: 53 },
    tlvs: [{ type: 0xe0, value: text.encode("key") }],
  });
  const h = header(parseProxyV2(bytes));
  assert.equal(h.command, "local");
  assert.equal(h.family, "inet");
  assert.deepEqual(h.tlvs, [{ type: 0xe0, value: text.encode("key") }]);
  assert.equal(h.length, 16 + 12 + 6);
});

Deno.test("parseProxyV2 reads AF_UNSPEC with TLVs and AF_UNIX without addresses", () => {
  const unspec = encodeProxyV2({
    tlvs: [{ type: 0x04, value: new Uint8Array(2) }],
  });
  assert.deepEqual(header(parseProxyV2(unspec)).tlvs, [
    { type: 0x04, value: new Uint8Array(2) },
  ]);
  // AF_UNIX stream: 216 octets of paths, then a TLV.
  const unix = fixed(0x21, 0x31, 216 + 4);
  unix.set(text.encode("/run/dnsdist.sock"), 16);
  unix.set([0xe1, 0, 1, 0x7a], 16 + 216);
  const h = header(parseProxyV2(unix));
  assert.equal(h.family, "unix");
  assert.equal(h.protocol, "stream");
  assert.equal(h.source, undefined, "no address or port to report");
  assert.equal(h.destination, undefined);
  assert.deepEqual(h.tlvs, [{ type: 0xe1, value: new Uint8Array([0x7a]) }]);
  assert.equal(h.length, 16 + 220);
});

Deno.test("parseProxyV2 walks TLVs in order, empty ones too, as views of the bytes", () => {
  const bytes = encodeProxyV2({
    source: { address: "192.0.2.1", port: 1 },
    destination: { address: "192.0.2.2", port: 2 },
    tlvs: [
      { type: 0x01, value: text.encode("dot") },
      { type: 0x04, value: new Uint8Array(0) },
      { type: 0xe0, value: new Uint8Array(300).fill(7) },
      { type: 0x05, value: text.encode("id") },
    ],
  });
  const h = header(parseProxyV2(bytes));
  assert.deepEqual(h.tlvs.map((t) => [t.type, t.value.length]), [
    [0x01, 3],
    [0x04, 0],
    [0xe0, 300],
    [0x05, 2],
  ]);
  assert.equal(h.tlvs[2]!.value.buffer, bytes.buffer, "not a copy");
  assert.equal(h.tlvs[2]!.value.byteOffset, 16 + 12 + 6 + 3 + 3);
  assert.equal(h.length, bytes.length);
});

Deno.test("parseProxyV2 refuses a TLV that runs past the header", () => {
  const bytes = encodeProxyV2({
    tlvs: [{ type: 0xe0, value: new Uint8Array(8) }],
  });
  // The TLV says 9 octets of value; the header's length says 8.
  bytes[18] = 9;
  assert.match(reason(parseProxyV2(bytes)), /TLV 0xe0 at octet 16 overruns/);
  // Same bytes followed by a query: the TLV may not borrow from it.
  const followed = new Uint8Array(bytes.length + 20);
  followed.set(bytes);
  assert.equal(parseProxyV2(followed).kind, "malformed");
  // One or two octets left over: not even a TLV's type and length.
  for (const extra of [1, 2]) {
    const dangling = fixed(0x21, 0x00, extra);
    assert.match(reason(parseProxyV2(dangling)), /TLV at octet 16 overruns/);
  }
});

Deno.test("parseProxyV2 refuses an address block shorter than its family's", () => {
  assert.match(
    reason(parseProxyV2(fixed(0x21, 0x12, 8))),
    /length 8 too short for the inet addresses/,
  );
  assert.match(reason(parseProxyV2(fixed(0x21, 0x21, 35))), /inet6/);
  assert.match(reason(parseProxyV2(fixed(0x20, 0x31, 215))), /unix/);
});

Deno.test("parseProxyV2 refuses versions other than 2 and commands other than LOCAL and PROXY", () => {
  for (const version of [0, 1, 3, 15]) {
    assert.match(
      reason(parseProxyV2(fixed(version << 4 | 1, 0x12, 12))),
      new RegExp(`version ${version}, not 2`),
    );
  }
  for (let command = 2; command < 16; command++) {
    assert.match(
      reason(parseProxyV2(fixed(0x20 | command, 0x12, 12))),
      new RegExp(`command ${command}`),
    );
  }
  // Known as soon as the 13th octet is there: a stream need not wait.
  assert.equal(
    parseProxyV2(fixed(0x11, 0x12).subarray(0, 13)).kind,
    "malformed",
  );
});

Deno.test("parseProxyV2 refuses unknown address families and protocols", () => {
  for (let family = 4; family < 16; family++) {
    assert.match(
      reason(parseProxyV2(fixed(0x21, family << 4 | 1, 12))),
      new RegExp(`address family ${family}`),
    );
  }
  for (let protocol = 3; protocol < 16; protocol++) {
    assert.match(
      reason(parseProxyV2(fixed(0x21, 0x10 | protocol, 12))),
      new RegExp(`transport protocol ${protocol}`),
    );
  }
});

Deno.test("parseProxyV2 takes a header of 2048 octets and refuses 2049 from its length field", () => {
  const largest = encodeProxyV2({
    source: { address: "192.0.2.1", port: 1 },
    destination: { address: "192.0.2.2", port: 2 },
    tlvs: [{ type: 0x04, value: new Uint8Array(2048 - 16 - 12 - 3) }],
  });
  assert.equal(largest.length, PROXY_V2_MAX_LENGTH);
  assert.equal(header(parseProxyV2(largest)).length, 2048);
  const over = fixed(0x21, 0x12, 2049 - 16);
  assert.match(reason(parseProxyV2(over)), /header of 2049 octets, over 2048/);
  // The 16 octets of the fixed part are enough to refuse it.
  assert.equal(parseProxyV2(over.subarray(0, 16)).kind, "malformed");
  assert.equal(parseProxyV2(fixed(0x21, 0x12, 0xffff)).kind, "malformed");
});

Deno.test("parseProxyV2 says how many octets a header cut short needs", () => {
  const bytes = encodeProxyV2({
    source: { address: "192.0.2.1", port: 1 },
    destination: { address: "192.0.2.2", port: 2 },
    tlvs: [{ type: 0xe0, value: new Uint8Array(40) }],
  });
  assert.equal(bytes.length, 16 + 12 + 43);
  for (let cut = 0; cut < bytes.length; cut++) {
    assert.deepEqual(
      parseProxyV2(bytes.subarray(0, cut)),
      { kind: "incomplete", needed: cut < 16 ? 16 : bytes.length },
      `cut at ${cut}`,
    );
  }
  assert.equal(parseProxyV2(bytes).kind, "header");
});

Deno.test("parseProxyV2 finds no header in DNS messages, garbage or a v1 line", () => {
  const dnsQuery = new Uint8Array([
    0x0d,
    0x0a, // an ID that starts like the signature
    0x01,
    0x00,
    0,
    1,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    1,
    0,
    1,
  ]);
  const v1 = text.encode("PROXY TCP4 192.0.2.1 192.0.2.2 5353 53\r\n");
  for (const bytes of [dnsQuery, v1, new Uint8Array(100).fill(0xff)]) {
    assert.deepEqual(parseProxyV2(bytes), { kind: "none" });
    assert.equal(hasProxyV2Signature(bytes), false);
  }
  // The signature with its last octet wrong.
  const almost = fixed(0x21, 0x12, 12);
  almost[11] = 0x0b;
  assert.deepEqual(parseProxyV2(almost), { kind: "none" });
  assert.equal(hasProxyV2Signature(fixed(0x21, 0x12)), true);
  assert.equal(hasProxyV2Signature(PROXY_V2_SIGNATURE.subarray(0, 11)), false);
});

Deno.test("parseProxyV2 never throws nor reads past a header, whatever the bytes", () => {
  const signed = fc.uint8Array({ maxLength: 2200 }).map((rest) => {
    const bytes = new Uint8Array(12 + rest.length);
    bytes.set(PROXY_V2_SIGNATURE);
    bytes.set(rest, 12);
    return bytes;
  });
  // Mostly plausible fixed parts, so the address and TLV code is reached.
  const plausible = fc.record({
    versionCommand: fc.constantFrom(0x20, 0x21, 0x22, 0x11),
    familyProtocol: fc.constantFrom(0x00, 0x11, 0x12, 0x21, 0x22, 0x31, 0x43),
    len: fc.nat(300),
    body: fc.uint8Array({ maxLength: 320 }),
  }).map(({ versionCommand, familyProtocol, len, body }) => {
    const bytes = fixed(versionCommand, familyProtocol);
    const whole = new Uint8Array(16 + body.length);
    whole.set(bytes);
    whole.set(body, 16);
    whole[14] = len >> 8;
    whole[15] = len & 0xff;
    return whole;
  });
  // Real headers, one octet changed or not, a query's bytes after them.
  const mutated = fc.record({
    tlvs: fc.array(
      fc.record({ type: fc.nat(255), value: fc.uint8Array({ maxLength: 40 }) }),
      { maxLength: 4 },
    ),
    change: fc.option(fc.tuple(fc.nat(), fc.nat(255))),
    after: fc.uint8Array({ maxLength: 30 }),
  }).map(({ tlvs, change, after }) => {
    const h = encodeProxyV2({
      source: { address: "192.0.2.1", port: 1 },
      destination: { address: "192.0.2.2", port: 2 },
      tlvs,
    });
    if (change !== null) h[change[0] % h.length] = change[1];
    const bytes = new Uint8Array(h.length + after.length);
    bytes.set(h);
    bytes.set(after, h.length);
    return bytes;
  });
  const seen = new Set<string>();
  fc.assert(
    fc.property(
      fc.oneof(fc.uint8Array(), signed, plausible, mutated),
      (bytes) => {
        const parsed = parseProxyV2(bytes);
        seen.add(parsed.kind);
        switch (parsed.kind) {
          case "none":
            return !hasProxyV2Signature(bytes);
          case "incomplete":
            return parsed.needed > bytes.length &&
              parsed.needed <= PROXY_V2_MAX_LENGTH;
          case "malformed":
            return parsed.reason.length > 0;
          case "header": {
            const h = parsed.header;
            const tlvEnd = h.tlvs.at(-1);
            return h.length <= bytes.length &&
              h.length <= PROXY_V2_MAX_LENGTH &&
              (tlvEnd === undefined ||
                tlvEnd.value.byteOffset + tlvEnd.value.length === h.length);
          }
        }
      },
    ),
    { numRuns: 2000 },
  );
  // The generators reach every outcome, not just the first check.
  assert.deepEqual([...seen].sort(), [
    "header",
    "incomplete",
    "malformed",
    "none",
  ]);
});

Deno.test("encodeProxyV2 and parseProxyV2 agree on any header", () => {
  const v4 = fc.ipV4();
  // Eight full groups: ipaddr.js (the encoder's parser) reads "::1.2.3.4"
  // as IPv4-mapped, which fc.ipV6() would write.
  const v6 = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 })
    .map((groups) => groups.map((g) => g.toString(16)).join(":"));
  const endpoint = (ip: fc.Arbitrary<string>) =>
    fc.record({ address: ip, port: fc.integer({ min: 0, max: 65535 }) });
  fc.assert(
    fc.property(
      fc.oneof(
        fc.tuple(endpoint(v4), endpoint(v4)),
        fc.tuple(endpoint(v6), endpoint(v6)),
      ),
      fc.constantFrom("local" as const, "proxy" as const),
      fc.constantFrom("stream" as const, "dgram" as const),
      fc.array(
        fc.record({
          type: fc.nat(255),
          value: fc.uint8Array({ maxLength: 100 }),
        }),
        { maxLength: 5 },
      ),
      ([source, destination], command, protocol, tlvs) => {
        const bytes = encodeProxyV2({
          command,
          protocol,
          source,
          destination,
          tlvs,
        });
        const h = header(parseProxyV2(bytes));
        assert.equal(h.length, bytes.length);
        assert.equal(h.command, command);
        assert.equal(h.protocol, protocol);
        // fast-check's records have no prototype: compare plain copies.
        assert.deepEqual(h.tlvs, tlvs.map((t) => ({ ...t })));
        assert.equal(h.source?.port, source.port);
        assert.equal(
          h.source?.address,
          source.address.includes(":")
            ? canonical6(source.address)
            : source.address,
        );
        assert.equal(h.destination?.port, destination.port);
      },
    ),
    { numRuns: 300 },
  );
});

function canonical6(address: string): string {
  // URL's host parser writes IPv6 compressed too (RFC 5952).
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

Deno.test("formatIpv6 writes what ipaddr.js's toString() writes", () => {
  // Groups mostly zero, so that runs of every length and place occur.
  const groups = fc.array(
    fc.oneof(fc.constant(0), fc.constant(0), fc.nat(0xffff)),
    { minLength: 8, maxLength: 8 },
  );
  fc.assert(
    fc.property(groups, fc.nat(4), (values, at) => {
      const bytes = new Uint8Array(at + 16);
      values.forEach((g, i) => {
        bytes[at + 2 * i] = g >> 8;
        bytes[at + 2 * i + 1] = g & 0xff;
      });
      const expected = ipaddr.fromByteArray([...bytes.subarray(at)])
        .toString();
      assert.equal(formatIpv6(bytes, at), expected);
    }),
    { numRuns: 3000 },
  );
  const cases: [number[], string][] = [
    [[0, 0, 0, 0, 0, 0, 0, 0], "::"],
    [[0, 0, 0, 0, 0, 0, 0, 1], "::1"],
    [[0x2001, 0xdb8, 0, 0, 1, 0, 0, 1], "2001:db8::1:0:0:1"],
    [[0x2001, 0xdb8, 0, 1, 1, 1, 1, 1], "2001:db8:0:1:1:1:1:1"],
    [[0, 0, 0, 0, 0, 0xffff, 0xc000, 0x201], "::ffff:c000:201"],
    [[1, 0, 0, 0, 0, 0, 0, 0], "1::"],
  ];
  for (const [values, text] of cases) {
    const bytes = new Uint8Array(values.flatMap((g) => [g >> 8, g & 0xff]));
    assert.equal(formatIpv6(bytes), text);
  }
});
