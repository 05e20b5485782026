import assert from "node:assert/strict";
import fc from "fast-check";
import {
  derivePurposeKey,
  type EncryptionKeys,
  masterKey,
} from "./encryption_keys.ts";
import {
  MAX_SEALED_LENGTH,
  needsReseal,
  open,
  seal,
  type SealingKeys,
  sealingKeys,
} from "./sealed.ts";

const ENVELOPE =
  /^v1\.([0-9a-f]{8})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22,})$/;

/** Keys with a fresh random current key and, if asked, a previous one. */
async function randomKeys(previous?: EncryptionKeys): Promise<EncryptionKeys> {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return {
    current: await masterKey(bytes, "test"),
    previous: previous?.current,
    notes: [],
  };
}

Deno.test("seal and open round-trip JSON values", async () => {
  const keys = await sealingKeys(await randomKeys(), "sessionCookie");
  const values: unknown[] = [
    { user: "alice", exp: 1_900_000_000, groups: ["admins"] },
    "a string with ünïcødé and \u0000",
    42,
    -0.5,
    true,
    null,
    [],
    [1, [2, { three: 3 }]],
    "x".repeat(10_000),
  ];
  for (const value of values) {
    const text = await seal(value, keys);
    assert.match(text, ENVELOPE);
    assert.deepEqual(await open(text, keys), value);
  }
});

Deno.test("seal names the current key and never repeats an envelope", async () => {
  const keys = await randomKeys();
  const sealing = await sealingKeys(keys, "totpSecret");
  const a = await seal("same value", sealing);
  const b = await seal("same value", sealing);
  assert.equal(ENVELOPE.exec(a)![1], keys.current.id);
  assert.notEqual(ENVELOPE.exec(a)![2], ENVELOPE.exec(b)![2]); // fresh iv
  assert.notEqual(a, b);
  // Nothing of the value shows through.
  assert.ok(!a.includes(btoa("same value").slice(0, 8)));
});

Deno.test("seal refuses values without a JSON form", async () => {
  const keys = await sealingKeys(await randomKeys(), "sessionCookie");
  await assert.rejects(seal(undefined, keys), {
    name: "TypeError",
    message: "Cannot seal undefined: it has no JSON form",
  });
  await assert.rejects(seal(() => 1, keys), {
    message: "Cannot seal function: it has no JSON form",
  });
  await assert.rejects(seal(1n, keys), TypeError);
});

Deno.test("open gives undefined for every changed character", async () => {
  const keys = await sealingKeys(await randomKeys(), "sessionCookie");
  const text = await seal({ user: "alice", admin: false }, keys);
  for (let i = 0; i < text.length; i++) {
    for (const c of ["A", "g", "-", "0", "."]) {
      if (text[i] === c) continue;
      const changed = text.slice(0, i) + c + text.slice(i + 1);
      assert.equal(await open(changed, keys), undefined, `at ${i}: ${c}`);
    }
  }
});

Deno.test("open gives undefined for malformed input, and never throws", async (t) => {
  // A key id with a lower-case letter, so upper-casing it changes it.
  let keys = await sealingKeys(await randomKeys(), "sessionCookie");
  for (
    let i = 0;
    i < 50 && !/[a-z]/.test((await seal("value", keys)).split(".")[1]!);
    i++
  ) {
    keys = await sealingKeys(await randomKeys(), "sessionCookie");
  }
  const good = await seal("value", keys);
  const [, kid, iv, ct] = good.split(".") as [string, string, string, string];
  const cases: [string, unknown][] = [
    ["empty", ""],
    ["not a string: number", 42],
    ["not a string: null", null],
    ["not a string: object", { text: good }],
    ["not a string: undefined", undefined],
    ["another version", `v2.${kid}.${iv}.${ct}`],
    ["missing part", `v1.${kid}.${iv}`],
    ["extra part", `${good}.`],
    ["upper-case key id", `v1.${kid.toUpperCase()}.${iv}.${ct}`],
    ["short key id", `v1.${kid.slice(1)}.${iv}.${ct}`],
    ["short iv", `v1.${kid}.${iv.slice(2)}.${ct}`],
    ["padded ciphertext", `${good}==`],
    ["standard base64", `v1.${kid}.${iv}.${ct.replaceAll("-", "+")}+`],
    ["ciphertext shorter than the tag", `v1.${kid}.${iv}.${ct.slice(0, 20)}`],
    ["truncated", good.slice(0, -1)],
    ["surrounding whitespace", ` ${good} `],
    ["too long", `${good}${"A".repeat(MAX_SEALED_LENGTH)}`],
  ];
  for (const [name, text] of cases) {
    await t.step(name, async () => {
      assert.equal(await open(text, keys), undefined);
    });
  }
  assert.equal(await open(good, keys), "value");
  await fc.assert(
    fc.asyncProperty(fc.string({ maxLength: 200 }), async (text) => {
      assert.equal(await open(text, keys), undefined);
      assert.equal(await open(`v1.${kid}.${text}`, keys), undefined);
    }),
    { numRuns: 300 },
  );
});

Deno.test("open gives undefined for an envelope sealed with a key it does not have", async () => {
  const mine = await sealingKeys(await randomKeys(), "sessionCookie");
  const theirs = await sealingKeys(await randomKeys(), "sessionCookie");
  const text = await seal({ user: "admin" }, theirs);
  assert.equal(await open(text, mine), undefined);
  // Naming my key id does not help: the tag does not verify.
  const relabelled = text.replace(
    /^v1\.[0-9a-f]{8}\./,
    `v1.${mine.currentId}.`,
  );
  assert.equal(await open(relabelled, mine), undefined);
});

Deno.test("open does not take an envelope made for another purpose", async () => {
  const keys = await randomKeys();
  const session = await sealingKeys(keys, "sessionCookie");
  const totp = await sealingKeys(keys, "totpSecret");
  const cookie = await seal({ user: "alice" }, session);
  assert.equal(await open(cookie, totp), undefined);
  assert.equal(await open(await seal("SECRET", totp), session), undefined);
  // Even with one key for both, the purpose in the authenticated data
  // tells them apart.
  const sameKey: SealingKeys = {
    purpose: "totpSecret",
    currentId: session.currentId,
    byId: session.byId,
  };
  assert.equal(await open(cookie, sameKey), undefined);
  assert.deepEqual(await open(cookie, session), { user: "alice" });
});

Deno.test("seal and open rotate: the previous key opens old envelopes, the current one seals", async () => {
  const before = await randomKeys();
  const after = await randomKeys(before);
  const oldKeys = await sealingKeys(before, "totpSecret");
  const newKeys = await sealingKeys(after, "totpSecret");
  const old = await seal("JBSWY3DPEHPK3PXP", oldKeys);

  assert.equal(await open(old, newKeys), "JBSWY3DPEHPK3PXP");
  assert.equal(needsReseal(old, newKeys), true);
  const resealed = await seal(await open(old, newKeys), newKeys);
  assert.equal(ENVELOPE.exec(resealed)![1], after.current.id);
  assert.equal(needsReseal(resealed, newKeys), false);
  assert.equal(await open(resealed, newKeys), "JBSWY3DPEHPK3PXP");

  // Once the previous key is dropped, old envelopes stop opening.
  const retired = await sealingKeys(
    { ...after, previous: undefined },
    "totpSecret",
  );
  assert.equal(await open(old, retired), undefined);
  assert.equal(await open(resealed, retired), "JBSWY3DPEHPK3PXP");
  assert.equal(needsReseal("not an envelope", retired), false);
});

Deno.test("sealingKeys derives the purpose key of each master key", async () => {
  const before = await randomKeys();
  const keys = await randomKeys(before);
  const sealing = await sealingKeys(keys, "loginState");
  assert.equal(sealing.purpose, "loginState");
  assert.equal(sealing.currentId, keys.current.id);
  assert.deepEqual([...sealing.byId.keys()], [
    keys.current.id,
    before.current.id,
  ]);
  // The derived key is the one derivePurposeKey gives: a hand-made envelope opens.
  const key = await derivePurposeKey(keys.current, "loginState");
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = await crypto.subtle.encrypt(
    {
      name: "AES-GCM",
      iv,
      additionalData: new TextEncoder().encode(
        `v1.${keys.current.id}.kudurru login state v1`,
      ),
    },
    key,
    new TextEncoder().encode('{"state":"abc"}'),
  );
  const text = `v1.${keys.current.id}.${
    iv.toBase64({ alphabet: "base64url", omitPadding: true })
  }.${
    new Uint8Array(ct).toBase64({ alphabet: "base64url", omitPadding: true })
  }`;
  assert.deepEqual(await open(text, sealing), { state: "abc" });
});
