import assert from "node:assert/strict";
import fc from "fast-check";
import {
  newToken,
  parseToken,
  secretHash,
  secretMatches,
  TOKEN_ID_LENGTH,
} from "./api_token.ts";

Deno.test("newToken makes kdr_<id>_<secret> with the hash of the secret", () => {
  const token = newToken();
  assert.match(token.id, /^[a-z2-7]{12}$/);
  assert.match(token.secret, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(token.text, `kdr_${token.id}_${token.secret}`);
  assert.equal(token.secretHash, secretHash(token.secret));
  assert.match(token.secretHash, /^[0-9a-f]{64}$/);
  assert.deepEqual(parseToken(token.text), {
    id: token.id,
    secret: token.secret,
  });
  assert.equal(
    Uint8Array.fromBase64(token.secret, { alphabet: "base64url" }).length,
    32,
  );
});

Deno.test("newToken draws ids and secrets from the whole alphabet, never twice", () => {
  const ids = new Set<string>();
  const secrets = new Set<string>();
  const idChars = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const token = newToken();
    ids.add(token.id);
    secrets.add(token.secret);
    for (const c of token.id) idChars.add(c);
    assert.deepEqual(parseToken(token.text), {
      id: token.id,
      secret: token.secret,
    });
  }
  assert.equal(ids.size, 2000);
  assert.equal(secrets.size, 2000);
  assert.equal(
    [...idChars].sort().join(""),
    "234567abcdefghijklmnopqrstuvwxyz",
  );
});

Deno.test("parseToken takes only the exact shape of a token", async (t) => {
  const { id, secret, text } = newToken();
  // A secret whose spare bits are zero, and one just like it with one set.
  const canonical = "A".repeat(42) + "E";
  const cases: [string, string][] = [
    ["empty", ""],
    ["prefix only", "kdr_"],
    ["another prefix", `kdx_${id}_${secret}`],
    ["upper-case prefix", `KDR_${id}_${secret}`],
    ["upper-case id", `kdr_${id.toUpperCase()}_${secret}`],
    ["id with a 1", `kdr_${id.slice(0, 11)}1_${secret}`],
    ["id with an 8", `kdr_8${id.slice(1)}_${secret}`],
    ["short id", `kdr_${id.slice(1)}_${secret}`],
    ["long id", `kdr_${id}a_${secret}`],
    ["short secret", `kdr_${id}_${secret.slice(1)}`],
    ["long secret", `kdr_${id}_${secret}A`],
    ["padded secret", `kdr_${id}_${secret}=`],
    ["standard base64", `kdr_${id}_${"+".repeat(42)}A`],
    ["spare bits set", `kdr_${id}_${"A".repeat(42)}F`],
    ["leading space", ` ${text}`],
    ["trailing newline", `${text}\n`],
    ["Bearer scheme left on", `Bearer ${text}`],
    ["no separator", `kdr_${id}${secret}`],
  ];
  for (const [name, bad] of cases) {
    await t.step(name, () => assert.equal(parseToken(bad), undefined));
  }
  assert.deepEqual(parseToken(`kdr_${id}_${canonical}`), {
    id,
    secret: canonical,
  });
  // A secret may contain "_" and "-"; the id's fixed length keeps it apart.
  const underscores = "_".repeat(20) + "-".repeat(22) + "A";
  assert.deepEqual(
    parseToken(`kdr_${"a".repeat(TOKEN_ID_LENGTH)}_${underscores}`),
    {
      id: "a".repeat(TOKEN_ID_LENGTH),
      secret: underscores,
    },
  );
});

Deno.test("parseToken accepts the encoding of every 32-byte secret, and only that", () => {
  const base32 = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz234567");
  fc.assert(
    fc.property(
      fc.string({ unit: base32, minLength: 12, maxLength: 12 }),
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      fc.integer({ min: 1, max: 3 }),
      (id, bytes, spare) => {
        const secret = bytes.toBase64({
          alphabet: "base64url",
          omitPadding: true,
        });
        assert.deepEqual(parseToken(`kdr_${id}_${secret}`), { id, secret });
        // The same bytes with spare bits set in the last character: refused.
        const alphabet =
          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        const last = alphabet[alphabet.indexOf(secret.at(-1)!) + spare]!;
        assert.equal(
          parseToken(`kdr_${id}_${secret.slice(0, -1)}${last}`),
          undefined,
        );
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("secretHash is SHA-256 of the secret in hex", () => {
  // FIPS 180-2 test vector.
  assert.equal(
    secretHash("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});

Deno.test("secretMatches compares the full stored hash", () => {
  const { secret, secretHash: stored } = newToken();
  assert.equal(secretMatches(secret, stored), true);
  assert.equal(secretMatches(newToken().secret, stored), false);
  assert.equal(secretMatches(`${secret}x`, stored), false);
  // A hash that differs only in its last digit does not match.
  const last = stored.at(-1) === "0" ? "1" : "0";
  assert.equal(secretMatches(secret, stored.slice(0, -1) + last), false);
  // Nor does a prefix of it, nor the hash in other forms.
  assert.equal(secretMatches(secret, stored.slice(0, 32)), false);
  assert.equal(secretMatches(secret, stored.toUpperCase()), false);
  assert.equal(secretMatches(secret, ""), false);
});

Deno.test("secretMatches says no when no token has the id", () => {
  const { secret } = newToken();
  assert.equal(secretMatches(secret, undefined), false);
  // Not even for the secret the stand-in hash was made from.
  assert.equal(
    secretMatches("kudurru: no token has this id", undefined),
    false,
  );
});
