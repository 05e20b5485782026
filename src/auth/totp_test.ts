import assert from "node:assert/strict";
import { Secret, TOTP, URI } from "otpauth";
import { newTotpSecret, totpStep, totpUri, verifyTotp } from "./totp.ts";

// RFC 6238 Appendix B's SHA-1 seed, "12345678901234567890", in base32.
const RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

/** The code an authenticator app shows at `ms`. */
function codeAt(secret: string, ms: number): string {
  return TOTP.generate({
    secret: Secret.fromBase32(secret),
    timestamp: ms,
  });
}

Deno.test("verifyTotp accepts the RFC 6238 test vectors (last six digits)", async (t) => {
  const vectors: [number, string][] = [
    [59, "287082"],
    [1111111109, "081804"],
    [1111111111, "050471"],
    [1234567890, "005924"],
    [2000000000, "279037"],
    [20000000000, "353130"],
  ];
  for (const [seconds, code] of vectors) {
    await t.step(`T=${seconds}`, () => {
      const now = seconds * 1000;
      assert.equal(verifyTotp(code, RFC_SECRET, undefined, now), totpStep(now));
      assert.equal(totpStep(now), Math.floor(seconds / 30));
    });
  }
});

Deno.test("verifyTotp accepts one step either side and no further", () => {
  const secret = newTotpSecret();
  const now = 1_700_000_015_000; // in the middle of a step
  const step = totpStep(now);
  for (const offset of [-1, 0, 1]) {
    const code = codeAt(secret, now + offset * 30_000);
    assert.equal(verifyTotp(code, secret, undefined, now), step + offset);
  }
  for (const offset of [-3, -2, 2, 3]) {
    const code = codeAt(secret, now + offset * 30_000);
    // (A code of a far step could equal one in the window by chance.)
    const inWindow = [-1, 0, 1].some((o) =>
      codeAt(secret, now + o * 30_000) === code
    );
    if (!inWindow) {
      assert.equal(verifyTotp(code, secret, undefined, now), undefined);
    }
  }
});

Deno.test("verifyTotp takes each code once, and none older than the last", () => {
  const secret = newTotpSecret();
  let now = 1_700_000_000_000;
  const code = codeAt(secret, now);
  const used = verifyTotp(code, secret, undefined, now);
  assert.equal(used, totpStep(now));
  // Replayed at once, or ten seconds later while still current: refused.
  assert.equal(verifyTotp(code, secret, used, now), undefined);
  assert.equal(verifyTotp(code, secret, used, now + 10_000), undefined);
  // The next step's code is fine; then the earlier step's code is not,
  // though it is still within the window.
  now += 30_000;
  const next = verifyTotp(codeAt(secret, now), secret, used, now);
  assert.equal(next, used! + 1);
  const previous = codeAt(secret, now - 30_000);
  if (previous !== codeAt(secret, now)) {
    assert.equal(verifyTotp(previous, secret, next, now), undefined);
  }
  // A code a step ahead (the phone's clock runs fast) spends that step.
  const ahead = verifyTotp(codeAt(secret, now + 30_000), secret, next, now);
  assert.equal(ahead, next! + 1);
  assert.equal(verifyTotp(codeAt(secret, now), secret, ahead, now), undefined);
});

Deno.test("verifyTotp refuses what is not six digits, and ignores spaces", () => {
  const now = 59_000;
  assert.equal(verifyTotp("287 082", RFC_SECRET, undefined, now), 1);
  assert.equal(verifyTotp(" 287082\n", RFC_SECRET, undefined, now), 1);
  const bad = [
    "",
    "28708",
    "2870820",
    "94287082", // the 8-digit form
    "28708a",
    "２８７０８２", // full-width digits
    "287-082",
    "-287082",
    "2".repeat(100_000),
  ];
  for (const code of bad) {
    assert.equal(verifyTotp(code, RFC_SECRET, undefined, now), undefined, code);
  }
});

Deno.test("verifyTotp uses the current time by default", () => {
  const secret = newTotpSecret();
  const now = Date.now();
  assert.equal(
    verifyTotp(codeAt(secret, now), secret, undefined) !== undefined,
    true,
  );
});

Deno.test("verifyTotp and totpUri refuse a damaged secret with an error", () => {
  for (
    const secret of [
      "",
      "not base32!",
      "GEZDGNBV",
      "gezdgnbvgy3tqojqgezdgnbvgy3tqojq",
    ]
  ) {
    assert.throws(() => verifyTotp("123456", secret, undefined, 0), {
      message:
        "Cannot use the TOTP secret: it is not base32 of at least 80 bits; set up TOTP again",
    });
    assert.throws(() => totpUri(secret, "alice"), /Cannot use the TOTP secret/);
  }
});

Deno.test("newTotpSecret makes 160 random bits in base32", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 500; i++) {
    const secret = newTotpSecret();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    assert.equal(Secret.fromBase32(secret).bytes.length, 20);
    seen.add(secret);
  }
  assert.equal(seen.size, 500);
});

Deno.test("totpUri gives authenticator apps the secret and the settings they assume", () => {
  const secret = newTotpSecret();
  const uri = totpUri(secret, "alice@example.org");
  assert.ok(uri.startsWith("otpauth://totp/kudurru:alice%40example.org?"), uri);
  const params = new URL(uri).searchParams;
  assert.equal(params.get("secret"), secret);
  assert.equal(params.get("issuer"), "kudurru");
  assert.equal(params.get("algorithm"), "SHA1");
  assert.equal(params.get("digits"), "6");
  assert.equal(params.get("period"), "30");
  // Read back as an app would, it makes the codes verifyTotp accepts.
  const app = URI.parse(uri) as TOTP;
  const now = 1_700_000_000_000;
  assert.equal(
    verifyTotp(app.generate({ timestamp: now }), secret, undefined, now),
    totpStep(now),
  );
  assert.match(
    totpUri(secret, "bob", "kudurru lab"),
    /^otpauth:\/\/totp\/kudurru%20lab:bob\?/,
  );
  assert.throws(() => totpUri(secret, ""), {
    message: "Cannot make a TOTP URI without an account name",
  });
});
