import assert from "node:assert/strict";
import fc from "fast-check";
import { readName } from "./wire/read_name.ts";
import {
  canonicalName,
  checkDomainName,
  type DomainNameOptions,
  isSubdomainOf,
  labelOctets,
  normalizeName,
  splitLabels,
  toFqdn,
} from "./name.ts";

const label63 = "a".repeat(63);
const label64 = "a".repeat(64);
// 3 × (1 + 63) + (1 + 62) + 1 = 256 octets with the root: one too many.
const name256 = [label63, label63, label63, "a".repeat(62)].join(".");
// 3 × 64 + (1 + 61) + 1 = 255 octets: exactly the limit.
const name255 = [label63, label63, label63, "a".repeat(61)].join(".");

Deno.test("checkDomainName accepts valid names", async (t) => {
  const cases: [string, DomainNameOptions][] = [
    [".", {}],
    ["example.com", {}],
    ["example.com.", { requireTrailingDot: true }],
    ["_sip._tcp.example.com", {}],
    ["a-b.c_d.example", {}],
    ["a\\.b.example.", {}],
    ["a\\032b.example", {}],
    ["a\\ b.example", {}],
    ["\\*.example", {}],
    ["*.example.com", { allowWildcard: true }],
    ["*", { allowWildcard: true }],
    [label63 + ".example", {}],
    [name255, {}],
    [name255 + ".", {}],
    ["\\065b.example", {}],
    ["!#$%&'()+,/:;<=>?@[]^`{|}~.example", {}],
  ];
  for (const [name, opts] of cases) {
    await t.step(`${name.slice(0, 50)} ${JSON.stringify(opts)}`, () => {
      assert.equal(checkDomainName(name, opts), null);
    });
  }
});

Deno.test("checkDomainName rejects invalid names with a reason", async (t) => {
  const cases: [string, DomainNameOptions, RegExp][] = [
    ["", {}, /name is empty/],
    ["a..b", {}, /has an empty label/],
    [".a", {}, /has an empty label/],
    ["a.b..", {}, /has an empty label/],
    ["..", {}, /has an empty label/],
    [label64 + ".example", {}, /^label "a{20}…" is longer than 63 octets$/],
    ["a\\.".repeat(32) + ".example", {}, /is longer than 63 octets/],
    [name256, {}, /is 256 octets in wire form; the limit is 255/],
    ["example.com", { requireTrailingDot: true }, /is not fully qualified/],
    ["a\\.", { requireTrailingDot: true }, /is not fully qualified/],
    ["*.example.com", {}, /wildcard "\*" is not allowed here/],
    [
      "a.*.example.com",
      { allowWildcard: true },
      /only allowed as the leftmost label/,
    ],
    [
      "a*.example.com",
      { allowWildcard: true },
      /mixes "\*" with other characters/,
    ],
    ["a b.example", {}, /contains whitespace or a control character/],
    ["a\tb.example", {}, /contains whitespace or a control character/],
    ["exämple.com", {}, /non-ASCII character; use its punycode/],
    ["example.com\\", {}, /ends with a lone backslash/],
    ["a\\25.example", {}, /escape "\\25\." that is not \\DDD/],
    ["a\\256.example", {}, /escape "\\256" above \\255/],
  ];
  for (const [name, opts, want] of cases) {
    await t.step(`${name.slice(0, 50)} ${JSON.stringify(opts)}`, () => {
      const got = checkDomainName(name, opts);
      assert.ok(got !== null, "expected an error");
      assert.match(got, want);
    });
  }
});

Deno.test("toFqdn adds a missing trailing dot only", async (t) => {
  const cases: [string, string][] = [
    ["example.com", "example.com."],
    ["example.com.", "example.com."],
    [".", "."],
    ["", "."],
    ["a\\.", "a\\.."],
    ["a\\\\.", "a\\\\."],
  ];
  for (const [name, want] of cases) {
    await t.step(name, () => assert.equal(toFqdn(name), want));
  }
});

Deno.test("normalizeName lowercases and qualifies without touching escapes", () => {
  assert.equal(normalizeName("WWW.Example.COM"), "www.example.com.");
  assert.equal(normalizeName("A\\065.Example."), "a\\065.example.");
});

Deno.test("splitLabels splits on unescaped dots only", async (t) => {
  const cases: [string, string[]][] = [
    [".", []],
    ["", []],
    ["example.com", ["example", "com"]],
    ["example.com.", ["example", "com"]],
    ["a\\.b.example.", ["a\\.b", "example"]],
    ["a\\\\.b", ["a\\\\", "b"]],
    ["a\\046b.c", ["a\\046b", "c"]],
    ["*.example", ["*", "example"]],
  ];
  for (const [name, want] of cases) {
    await t.step(name, () => assert.deepEqual(splitLabels(name), want));
  }
});

Deno.test("isSubdomainOf compares whole labels, ignoring case and trailing dots", async (t) => {
  const cases: [string, string, boolean][] = [
    ["www.example.com", "example.com", true],
    ["www.example.com.", "example.com", true],
    ["WWW.EXAMPLE.COM", "example.com.", true],
    ["example.com", "example.com.", true],
    ["example.com", ".", true],
    [".", ".", true],
    ["a\\.b.example.com", "example.com", true],
    ["a\\.example.com", "example.com", false],
    ["\\069xample.com", "example.com", true],
    ["badexample.com", "example.com", false],
    ["a\\.example.com", "a.example.com", false],
    ["example.com", "www.example.com", false],
    [".", "com", false],
    ["a..b", ".", false],
  ];
  for (const [name, zone, want] of cases) {
    await t.step(
      `${name} under ${zone}`,
      () => assert.equal(isSubdomainOf(name, zone), want),
    );
  }
});

Deno.test("labelOctets decodes escapes to octets", () => {
  assert.deepEqual(labelOctets("a\\.b.\\000x."), [
    Uint8Array.from([0x61, 0x2e, 0x62]),
    Uint8Array.from([0x00, 0x78]),
  ]);
  assert.throws(
    () => labelOctets("a..b"),
    /Cannot decode name: name "a\.\.b" has an empty label/,
  );
});

/** Presentation form of one octet, escaped when it is special or unprintable. */
function presentOctet(octet: number): string {
  if (octet === 0x2e || octet === 0x5c || octet === 0x2a) {
    return "\\" + String.fromCharCode(octet);
  }
  if (octet > 0x20 && octet < 0x7f) return String.fromCharCode(octet);
  return "\\" + String(octet).padStart(3, "0");
}

const labelArb = fc.uint8Array({ minLength: 1, maxLength: 63 });
const nameArb = fc.array(labelArb, { minLength: 1, maxLength: 3 });

Deno.test("splitLabels and labelOctets round-trip any generated valid name", () => {
  fc.assert(
    fc.property(nameArb, fc.boolean(), (labels, absolute) => {
      const texts = labels.map((label) =>
        Array.from(label, presentOctet).join("")
      );
      const name = texts.join(".") + (absolute ? "." : "");
      assert.equal(checkDomainName(name), null);
      assert.deepEqual(splitLabels(name), texts);
      assert.deepEqual(labelOctets(name), labels);
      assert.ok(isSubdomainOf(name, texts.slice(1).join(".") || "."));
    }),
  );
});

/** `labels` as a name in wire form. */
function wireName(labels: Uint8Array[]): Uint8Array {
  const out: number[] = [];
  for (const label of labels) out.push(label.length, ...label);
  out.push(0);
  return Uint8Array.from(out);
}

Deno.test("canonicalName spells a name as readName reads it off the wire", () => {
  const starFirst = fc.tuple(fc.constant(Uint8Array.of(0x2a)), nameArb)
    .map(([star, rest]) => [star, ...rest]);
  fc.assert(
    fc.property(fc.oneof(nameArb, starFirst), (labels) => {
      const read = readName(wireName(labels), 0).name;
      // Every octet escaped: the most roundabout spelling there is.
      const escaped = labels.map((label) =>
        Array.from(label, (o) => "\\" + String(o).padStart(3, "0")).join("")
      ).join(".");
      assert.equal(canonicalName(escaped), read);
      assert.equal(canonicalName(read), read);
    }),
  );
  assert.equal(canonicalName("\\*.a.Example"), "*.a.Example.");
  assert.equal(canonicalName("a.*.b."), "a.\\*.b.");
  assert.equal(canonicalName("."), ".");
  assert.equal(canonicalName("a..b"), "a..b", "invalid: unchanged");
});
