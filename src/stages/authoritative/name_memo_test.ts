import assert from "node:assert/strict";
import { EDNS_OPTION } from "../../dns/wire/constants.ts";
import { requestFor } from "../../testing/fixtures.ts";
import {
  MAX_ANSWERS_PER_NAME,
  memoVariant,
  NameMemo,
  NO_ZONE,
} from "./name_memo.ts";

/** A stand-in answer: a query's bytes with QR set, as a memo would keep it. */
function wireFor(question: string): Uint8Array {
  const wire = requestFor(question).bytes.slice();
  wire[2]! |= 0x80;
  return wire;
}

/** The variant of a plain UDP query without EDNS (type A by default). */
const A = memoVariant(requestFor("x.example. A"))!;

/** Keeps the answer to an A query for `name.example.`. */
function keepA(memo: NameMemo, name: string): void {
  const qname = `${name}.example.`;
  memo.keepAnswer(qname, memo.lookup(qname), A, wireFor(`${qname} A`));
}

/** The memo's answer to `question`, looked up as the stage does. */
function answerFor(memo: NameMemo, question: string) {
  const req = requestFor(question);
  const facts = memo.lookup(req.qname);
  return facts && memo.answer(facts, memoVariant(req)!, req);
}

Deno.test("name memo keeps at most its limit", () => {
  const memo = new NameMemo(4);
  for (const name of ["a", "b", "c", "d", "e", "f", "g"]) keepA(memo, name);
  assert.ok(memo.size <= 4, `size ${memo.size}`);
  assert.equal(answerFor(memo, "g.example. A")?.wire[2]! & 0x80, 0x80);
  assert.equal(answerFor(memo, "a.example. A"), undefined);
});

Deno.test("name memo keeps a name that is read while others come and go", () => {
  const memo = new NameMemo(4);
  keepA(memo, "hot");
  for (const name of ["a", "b", "c", "d", "e", "f", "g", "h"]) {
    keepA(memo, name);
    assert.ok(answerFor(memo, "hot.example. A"), name);
  }
  assert.equal(answerFor(memo, "a.example. A"), undefined);
  assert.ok(memo.size <= 4, `size ${memo.size}`);
});

Deno.test("name memo hits carry the query's ID and the client's case", () => {
  const memo = new NameMemo();
  const stored = wireFor("www.example. A");
  memo.keepAnswer("www.example.", undefined, A, stored);
  const req = requestFor("wWw.ExAmple. A", { id: 0xbeef });
  const hit = memo.answer(memo.lookup(req.qname)!, A, req)!;
  assert.equal((hit.wire[0]! << 8) | hit.wire[1]!, 0xbeef);
  assert.deepEqual(hit.wire.subarray(12, 26), req.bytes.subarray(12, 26));
  assert.equal(memo.hits, 1);
  assert.equal(memo.misses, 1);
  // The source comes back too (the query log summarises it once); the
  // copy is a copy.
  assert.equal(hit.stored, stored);
  assert.notEqual(hit.wire, stored);
  assert.equal(stored[0], requestFor("www.example. A").bytes[0]);
});

Deno.test("name memo does not serve an answer kept under another name", () => {
  const memo = new NameMemo();
  memo.keepAnswer("www.example.", undefined, A, wireFor("www.example. A"));
  const req = requestFor("xyz.example. A");
  assert.equal(memo.answer(memo.lookup("www.example.")!, A, req), undefined);
  assert.equal(memo.hits, 0);
});

Deno.test("name memo answers each variant of a name with its own answer", () => {
  const memo = new NameMemo();
  const questions: [string, Parameters<typeof requestFor>[1]][] = [
    ["www.example. A", {}],
    ["www.example. AAAA", {}],
    ["www.example. A", { edns: { udpSize: 1232 } }],
    ["www.example. A", { edns: { udpSize: 1232, do: true } }],
    ["www.example. A", { edns: { udpSize: 800 } }],
    ["www.example. A", { rd: false }],
    ["www.example. A", { cd: true }],
    ["www.example. A", { transport: "tcp" }],
  ];
  const variants = questions.map(([q, opts]) =>
    memoVariant(requestFor(q, opts))
  );
  assert.equal(new Set(variants).size, questions.length, "variants differ");
  questions.forEach(([q], i) => {
    const wire = wireFor(q);
    wire[3] = i; // tells the answers apart
    memo.keepAnswer(
      "www.example.",
      memo.lookup("www.example."),
      variants[i]!,
      wire,
    );
  });
  questions.forEach(([q, opts], i) => {
    const req = requestFor(q, opts);
    const hit = memo.answer(memo.lookup(req.qname)!, memoVariant(req)!, req);
    assert.equal(hit?.wire[3], i, q);
  });
  assert.equal(memo.size, questions.length);
});

Deno.test("name memo keeps at most MAX_ANSWERS_PER_NAME answers for one name", () => {
  const memo = new NameMemo();
  const sizes = Array.from(
    { length: MAX_ANSWERS_PER_NAME + 3 },
    (_, i) => 1000 + i,
  );
  const variantOf = (udpSize: number) =>
    memoVariant(requestFor("www.example. A", { edns: { udpSize } }))!;
  for (const udpSize of sizes) {
    memo.keepAnswer(
      "www.example.",
      memo.lookup("www.example."),
      variantOf(udpSize),
      wireFor("www.example. A"),
    );
  }
  assert.equal(memo.size, MAX_ANSWERS_PER_NAME);
  const facts = memo.lookup("www.example.")!;
  // The oldest went first.
  assert.equal(facts.variants.includes(variantOf(sizes[0]!)), false);
  assert.equal(facts.variants.includes(variantOf(sizes.at(-1)!)), true);
});

Deno.test("name memo keeps a route and answers for the same name", () => {
  const memo = new NameMemo();
  const route = { zone: "corp.example.", upstreamGroup: "corp" };
  memo.keepRoute("corp.example.", undefined, route);
  const ds = requestFor("corp.example. DS");
  const dsWire = wireFor("corp.example. DS");
  memo.keepAnswer(
    "corp.example.",
    memo.lookup("corp.example."),
    memoVariant(ds)!,
    dsWire,
  );
  const facts = memo.lookup("corp.example.")!;
  assert.equal(facts.route, route);
  assert.equal(memo.answer(facts, memoVariant(ds)!, ds)?.stored, dsWire);
  assert.equal(memo.size, 2);
  // A second route for a name changes nothing: routes depend on the name.
  memo.keepRoute("corp.example.", facts, NO_ZONE);
  assert.equal(memo.lookup("corp.example.")!.route, route);
  assert.equal(memo.size, 2);
});

Deno.test("name memo counts a name moved by a rotation between lookup and keep", () => {
  const memo = new NameMemo(4); // generations of 2
  keepA(memo, "a");
  keepA(memo, "b");
  const facts = memo.lookup("a.example.")!;
  keepA(memo, "c"); // the recent generation was full: a and b become older
  const aaaa = memoVariant(requestFor("a.example. AAAA"))!;
  memo.keepAnswer("a.example.", facts, aaaa, wireFor("a.example. AAAA"));
  // a (two answers) is recent again beside c; b is older.
  assert.equal(memo.size, 4);
  // The next name rotates: a's two answers and c become the older
  // generation (3 entries), b goes.
  keepA(memo, "d");
  assert.equal(memo.size, 4);
  assert.equal(memo.lookup("b.example."), undefined);
  const kept = [
    "a.example. AAAA",
    "a.example. A",
    "c.example. A",
    "d.example. A",
  ];
  for (const q of kept) assert.ok(answerFor(memo, q), q);
  // Its bytes are those of the same answers kept without any rotation.
  const unrotated = new NameMemo();
  for (const name of ["a", "c", "d"]) keepA(unrotated, name);
  unrotated.keepAnswer(
    "a.example.",
    unrotated.lookup("a.example."),
    aaaa,
    wireFor("a.example. AAAA"),
  );
  assert.equal(memo.bytes, unrotated.bytes);
});

Deno.test("memo variants leave out answers with per-client options and fit in 2^53", () => {
  const cookie = requestFor("www.example. A", {
    edns: { options: [{ code: EDNS_OPTION.COOKIE, data: new Uint8Array(8) }] },
  });
  cookie.answerOptions.push({
    code: EDNS_OPTION.COOKIE,
    data: new Uint8Array(8),
  });
  assert.equal(memoVariant(cookie), undefined);
  const nsid = requestFor("www.example. A", { edns: {} });
  nsid.answerOptions.push({ code: EDNS_OPTION.NSID, data: new Uint8Array(0) });
  assert.notEqual(memoVariant(nsid), undefined);
  assert.notEqual(
    memoVariant(nsid),
    memoVariant(requestFor("www.example. A", { edns: {} })),
  );
  const largest = requestFor("www.example. TYPE65535", {
    qclass: "CLASS65535",
    cd: true,
    edns: { udpSize: 65535, do: true },
    transport: "tcp",
  });
  assert.ok(Number.isSafeInteger(memoVariant(largest)));
});

Deno.test("name memo keeps about its byte limit of large answers", () => {
  const memo = new NameMemo(100_000, 200_000);
  const big = (): Uint8Array => new Uint8Array(10_000);
  for (let i = 0; i < 100; i++) {
    const name = `n${i}.example.`;
    memo.keepAnswer(name, memo.lookup(name), A, big());
  }
  // Two generations of at most 100,000 estimated bytes, each overfilled by
  // at most one name.
  assert.ok(memo.bytes <= 200_000 + 2 * 11_000, `bytes ${memo.bytes}`);
  assert.ok(memo.bytes > 100_000, `bytes ${memo.bytes}`);
  assert.ok(memo.size < 25, `size ${memo.size}`);
  assert.ok(memo.lookup("n99.example."));
  assert.equal(memo.lookup("n0.example."), undefined);
});

Deno.test("name memo counts bytes through replaced and dropped answers", () => {
  const memo = new NameMemo(100_000, 1_000_000);
  const name = "x.example.";
  // Variants told apart by the client's EDNS size.
  const keep = (variant: number, octets: number) =>
    memo.keepAnswer(
      name,
      memo.lookup(name),
      memoVariant(
        requestFor(`${name} A`, { edns: { udpSize: 1000 + variant } }),
      )!,
      new Uint8Array(octets),
    );
  keep(1, 100);
  const one = memo.bytes;
  keep(2, 100);
  const perAnswer = memo.bytes - one;
  assert.ok(perAnswer > 100, `per answer ${perAnswer}`);
  // The same variant again replaces its answer: only the size difference.
  keep(1, 300);
  assert.equal(memo.bytes, one + perAnswer + 200);
  // Past MAX_ANSWERS_PER_NAME the oldest answer (variant 1, now 300 octets)
  // goes, and its bytes with it.
  for (let v = 3; v <= MAX_ANSWERS_PER_NAME + 1; v++) keep(v, 100);
  assert.equal(memo.size, MAX_ANSWERS_PER_NAME);
  assert.equal(memo.bytes, one + (MAX_ANSWERS_PER_NAME - 1) * perAnswer);
});

Deno.test("name memo's default bounds hold a 17,000-name zone asked over UDP and TCP", () => {
  // The dnsperf benchmark's zone, asked name after name: a working set
  // larger than one generation would miss on every query.
  const memo = new NameMemo();
  const names = Array.from({ length: 17_000 }, (_, i) => `h${i}.bench.test.`);
  const answer = new Uint8Array(100);
  for (const round of [0, 1]) {
    for (const name of names) {
      const facts = memo.lookup(name);
      for (const variant of [A, A + 1]) {
        if (facts === undefined || !facts.variants.includes(variant)) {
          memo.keepAnswer(name, memo.lookup(name), variant, answer);
        }
      }
    }
    if (round === 0) assert.equal(memo.misses, 2 * names.length);
  }
  // The second round found every answer.
  assert.equal(memo.misses, 2 * names.length);
});
