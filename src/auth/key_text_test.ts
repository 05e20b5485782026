import assert from "node:assert/strict";
import { newEncryptionKeyText, parseEncryptionKey } from "./key_text.ts";

const KEY = Uint8Array.from({ length: 32 }, (_, i) => i * 7 + 3);
const OTHER = Uint8Array.from({ length: 32 }, (_, i) => 255 - i * 5);

Deno.test("parseEncryptionKey reads 32 bytes as hex, base64 or base64url", async (t) => {
  const cases: [string, string][] = [
    ["64 hex digits", KEY.toHex()],
    ["64 upper-case hex digits", KEY.toHex().toUpperCase()],
    ["padded base64", KEY.toBase64()],
    ["unpadded base64", KEY.toBase64({ omitPadding: true })],
    ["base64url", OTHER.toBase64({ alphabet: "base64url" })],
    ["with a trailing newline", `${KEY.toBase64()}\n`],
    ["with surrounding spaces", `  ${KEY.toHex()}\r\n`],
  ];
  for (const [name, text] of cases) {
    await t.step(name, () => {
      const want = name === "base64url" ? OTHER : KEY;
      assert.deepEqual(
        parseEncryptionKey(text, "KUDURRU_ENCRYPTION_KEY"),
        want,
      );
    });
  }
  // The example key of the error messages works.
  assert.equal(parseEncryptionKey(newEncryptionKeyText(), "x").length, 32);
});

Deno.test("parseEncryptionKey refuses what is not 32 random bytes, naming where it came from", async (t) => {
  const how =
    "it must be 32 random bytes written as base64 or as 64 hex digits (make one with: openssl rand -base64 32)";
  const cases: [string, string, string][] = [
    ["empty", "  \n", `it is empty; ${how}`],
    [
      "a passphrase",
      "correct horse battery staple",
      `it is neither hex nor base64; ${how}`,
    ],
    [
      "16 bytes",
      KEY.subarray(0, 16).toBase64(),
      `the key is too short (16 bytes); ${how}`,
    ],
    [
      "31 bytes of hex",
      KEY.subarray(0, 31).toHex(),
      `the key is too short (31 bytes); ${how}`,
    ],
    [
      "48 bytes",
      new Uint8Array([...KEY, ...OTHER.subarray(0, 16)]).toBase64(),
      `the key is too long (48 bytes); ${how}`,
    ],
    [
      "65 hex digits",
      `${KEY.toHex()}a`,
      `it is neither hex nor base64; ${how}`,
    ],
    [
      "64 zeros",
      "0".repeat(64),
      `the key is not random (it repeats a few byte values, like a placeholder); ${how}`,
    ],
    [
      "a repeated pattern",
      "0123456789abcdef".repeat(4),
      `the key is not random (it repeats a few byte values, like a placeholder); ${how}`,
    ],
    [
      "base64 with bad padding",
      `${KEY.toBase64({ omitPadding: true })}==`,
      `it is neither hex nor base64; ${how}`,
    ],
  ];
  for (const [name, text, want] of cases) {
    await t.step(
      name,
      () =>
        assert.throws(
          () => parseEncryptionKey(text, "KUDURRU_ENCRYPTION_KEY"),
          {
            message: `Cannot use KUDURRU_ENCRYPTION_KEY: ${want}`,
          },
        ),
    );
  }
});

Deno.test("newEncryptionKeyText writes 32 fresh random bytes as padded base64", () => {
  const a = newEncryptionKeyText();
  assert.match(a, /^[A-Za-z0-9+/]{43}=$/);
  assert.notEqual(newEncryptionKeyText(), a);
});
