import assert from "node:assert/strict";
import { argon2id } from "hash-wasm";
import {
  ARGON2_PARAMETERS,
  generatePassword,
  HASHING_CONCURRENCY,
  hashPassword,
  MAX_PASSWORD_BYTES,
  needsRehash,
  PASSWORD_ALPHABET,
  PasswordHashingBusyError,
  passwordProblem,
  PasswordRefusedError,
  verifyAgainstNothing,
  verifyPassword,
} from "./password.ts";

/** An Argon2id PHC string made outside hashPassword, with chosen parameters. */
function hashWith(
  password: string,
  memorySize: number,
  iterations = 2,
): Promise<string> {
  return argon2id({
    password,
    salt: crypto.getRandomValues(new Uint8Array(16)),
    memorySize,
    iterations,
    parallelism: 1,
    hashLength: 32,
    outputType: "encoded",
  });
}

Deno.test("hashPassword stores Argon2id with the fixed parameters and a fresh salt", async () => {
  const a = await hashPassword("correct horse battery");
  const b = await hashPassword("correct horse battery");
  const phc =
    /^\$argon2id\$v=19\$m=19456,t=2,p=1\$([A-Za-z0-9+/]{22})\$([A-Za-z0-9+/]{43})$/;
  assert.match(a, phc);
  assert.match(b, phc);
  // Same password, different salt: nothing shows two users share a password.
  assert.notEqual(phc.exec(a)![1], phc.exec(b)![1]);
  assert.notEqual(a, b);
  assert.equal(needsRehash(a), false);
});

Deno.test("verifyPassword accepts the password and nothing else", async () => {
  const stored = await hashPassword("correct horse battery");
  assert.equal(await verifyPassword("correct horse battery", stored), true);
  assert.equal(await verifyPassword("correct horse batterY", stored), false);
  assert.equal(await verifyPassword("correct horse battery ", stored), false);
  assert.equal(await verifyPassword(" ", stored), false);
});

Deno.test("verifyPassword compares NFKC-normalised passwords", async () => {
  const composed = "caf\u00e9-au-lait";
  const decomposed = "cafe\u0301-au-lait";
  const stored = await hashPassword(composed);
  assert.equal(await verifyPassword(decomposed, stored), true);
});

Deno.test("hashPassword and verifyPassword refuse empty and overlong passwords before hashing", async () => {
  const stored = await hashPassword("a".repeat(MAX_PASSWORD_BYTES));
  assert.equal(
    await verifyPassword("a".repeat(MAX_PASSWORD_BYTES), stored),
    true,
  );
  const cases: [string, string, "empty" | "too long"][] = [
    ["empty", "", "empty"],
    ["1025 ASCII bytes", "a".repeat(MAX_PASSWORD_BYTES + 1), "too long"],
    // 513 characters, 1026 bytes: the limit is on bytes.
    ["1026 UTF-8 bytes", "\u00e9".repeat(513), "too long"],
    ["a megabyte", "x".repeat(1 << 20), "too long"],
  ];
  for (const [name, password, reason] of cases) {
    for (
      const attempt of [
        () => hashPassword(password),
        () => verifyPassword(password, stored),
        () => verifyAgainstNothing(password),
      ]
    ) {
      await assert.rejects(attempt(), (err: unknown) => {
        assert.ok(err instanceof PasswordRefusedError, name);
        assert.equal(err.reason, reason);
        return true;
      });
    }
  }
  await assert.rejects(hashPassword(""), {
    message: "Cannot use an empty password",
  });
  await assert.rejects(hashPassword("a".repeat(1025)), {
    message: "Cannot use a password longer than 1024 bytes (UTF-8)",
  });
});

Deno.test("verifyPassword refuses stored hashes that are not Argon2id or cost too much", async () => {
  const notOurs = [
    "",
    "plain text",
    "$2b$10$abcdefghijklmnopqrstuuJ0RwIOSeVpcnbx6YE/Ilv8tm5JbxH6G", // bcrypt
    "$argon2i$v=19$m=19456,t=2,p=1$AAAAAAAAAAAAAAAAAAAAAA$qu7YaNBUVdA7W90s0oDV3Q/BGYy/YVhx+BlWYiF8kZ8",
    "$argon2id$v=16$m=19456,t=2,p=1$AAAAAAAAAAAAAAAAAAAAAA$qu7YaNBUVdA7W90s0oDV3Q/BGYy/YVhx+BlWYiF8kZ8",
  ];
  for (const encoded of notOurs) {
    await assert.rejects(verifyPassword("password", encoded), {
      message:
        "Cannot verify the password: the stored hash is not an Argon2id (v=19) PHC string",
    });
    assert.equal(needsRehash(encoded), true);
  }
  const tail =
    "$AAAAAAAAAAAAAAAAAAAAAA$qu7YaNBUVdA7W90s0oDV3Q/BGYy/YVhx+BlWYiF8kZ8";
  const costly: [string, RegExp][] = [
    [
      `$argon2id$v=19$m=4194304,t=2,p=1${tail}`,
      /4194304 KiB of memory \(at most 65536\)/,
    ],
    [`$argon2id$v=19$m=19456,t=1000,p=1${tail}`, /1000 passes \(at most 10\)/],
    [`$argon2id$v=19$m=19456,t=2,p=64${tail}`, /64 lanes \(at most 4\)/],
    [
      `$argon2id$v=19$m=19456,t=0,p=1${tail}`,
      /parameters Argon2 does not allow/,
    ],
  ];
  for (const [encoded, why] of costly) {
    await assert.rejects(
      verifyPassword("password", encoded),
      (err: unknown) => {
        assert.ok(err instanceof Error);
        assert.match(
          err.message,
          /^Cannot verify the password: the stored hash asks for /,
        );
        assert.match(err.message, why);
        assert.match(err.message, /reset the password$/);
        return true;
      },
    );
  }
});

Deno.test("verifyPassword still verifies hashes made with other parameters, which needsRehash flags", async () => {
  const old = await hashWith("correct horse battery", 4096, 3);
  assert.equal(await verifyPassword("correct horse battery", old), true);
  assert.equal(await verifyPassword("wrong horse battery", old), false);
  assert.equal(needsRehash(old), true);
});

Deno.test("verifyAgainstNothing hashes as long as a real verification and says no", async () => {
  const stored = await hashPassword("correct horse battery");
  // The first call makes the dummy hash; time the ones after it.
  assert.equal(await verifyAgainstNothing("correct horse battery"), false);
  const time = async (f: () => Promise<boolean>) => {
    const start = performance.now();
    assert.equal(await f(), false);
    return performance.now() - start;
  };
  const real: number[] = [];
  const dummy: number[] = [];
  for (let i = 0; i < 5; i++) {
    real.push(await time(() => verifyPassword("wrong password", stored)));
    dummy.push(await time(() => verifyAgainstNothing("wrong password")));
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[2]!;
  // Loose bounds (test files run in parallel), but an answer without
  // hashing would take well under a millisecond against tens for Argon2id.
  const ratio = median(dummy) / median(real);
  assert.ok(ratio > 0.25 && ratio < 4, `dummy/real time ratio ${ratio}`);
  assert.equal(await verifyAgainstNothing(generatePassword()), false);
});

Deno.test("hashPassword refuses work beyond 2 running and 32 waiting, then recovers", async () => {
  const total = HASHING_CONCURRENCY.running + HASHING_CONCURRENCY.waiting + 6;
  const results = await Promise.allSettled(
    Array.from(
      { length: total },
      (_, i) => hashPassword(`password number ${i}`),
    ),
  );
  const refused = results.filter((r) => r.status === "rejected");
  assert.equal(refused.length, 6);
  for (const r of refused) {
    const err = (r as PromiseRejectedResult).reason;
    assert.ok(err instanceof PasswordHashingBusyError);
    assert.equal(err.retryAfterSeconds, 1);
    assert.equal(
      err.message,
      "Cannot hash a password now: 2 hashes are running and 32 waiting; try again in a moment",
    );
  }
  // The ones refused were the last to come; the rest were all hashed.
  assert.deepEqual(
    results.map((r) => r.status),
    [
      ...Array(total - 6).fill("fulfilled"),
      ...Array(6).fill("rejected"),
    ],
  );
  assert.match(await hashPassword("after the burst"), /^\$argon2id\$/);
});

Deno.test("hashPassword refuses an overlong password even while the queue is full", async () => {
  const burst = Array.from(
    { length: HASHING_CONCURRENCY.running + HASHING_CONCURRENCY.waiting },
    () => hashPassword("filling the queue"),
  );
  // Refused as too long, not as busy: the length is checked before queueing.
  await assert.rejects(hashPassword("a".repeat(2000)), PasswordRefusedError);
  await assert.rejects(hashPassword("ok password"), PasswordHashingBusyError);
  await Promise.all(burst);
});

Deno.test("passwordProblem asks for length, not composition", async (t) => {
  const cases: [string, string | undefined, string | undefined][] = [
    ["", undefined, "The password is empty"],
    [
      "seven77",
      undefined,
      "The password is too short: use at least 8 characters (it has 7)",
    ],
    // Code points, not UTF-16 units: 7 emoji are 14 units.
    [
      "🔑🔑🔒🔑🔑🔑🔒",
      undefined,
      "The password is too short: use at least 8 characters (it has 7)",
    ],
    ["        ", undefined, "The password is only whitespace"],
    ["\t \n \u00a0   ", undefined, "The password is only whitespace"],
    [
      "aaaaaaaaaaaa",
      undefined,
      "The password repeats one character: choose one that is harder to guess",
    ],
    [
      "Password123",
      undefined,
      "The password is one of the most common passwords: choose one that is harder to guess",
    ],
    [
      "12345678",
      undefined,
      "The password is one of the most common passwords: choose one that is harder to guess",
    ],
    [
      "Administrator9",
      "administrator9",
      "The password is the user name: choose one that is harder to guess",
    ],
    [
      "a".repeat(1024) + "b",
      undefined,
      "The password is too long: use at most 1024 bytes (UTF-8)",
    ],
    // Accepted: long enough, whatever the characters.
    ["eightchr", undefined, undefined],
    ["all lower case words", undefined, undefined],
    ["1048576!", undefined, undefined],
    ["ÄÖÜäöüß€", undefined, undefined],
    ["   padded   ", undefined, undefined],
    ["alice-in-chains", "alice", undefined],
    ["x".repeat(1023) + "y", undefined, undefined],
  ];
  for (const [password, user, want] of cases) {
    await t.step(
      JSON.stringify(password.slice(0, 30)),
      () => assert.equal(passwordProblem(password, user), want),
    );
  }
});

Deno.test("generatePassword draws 24 unambiguous characters from crypto random", () => {
  const seen = new Set<string>();
  const counts = new Map<string, number>();
  for (let i = 0; i < 2000; i++) {
    const p = generatePassword();
    assert.equal(p.length, 24);
    assert.ok(!seen.has(p));
    seen.add(p);
    for (const c of p) {
      assert.ok(PASSWORD_ALPHABET.includes(c), `${c} in ${p}`);
      counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    assert.equal(passwordProblem(p), undefined);
  }
  for (const c of "0O1lIoij") assert.ok(!PASSWORD_ALPHABET.includes(c), c);
  // 48,000 draws over 54 characters: about 889 each. A bias (a plain
  // modulo, say) would push some far off.
  assert.equal(counts.size, PASSWORD_ALPHABET.length);
  for (const [c, n] of counts) assert.ok(n > 700 && n < 1100, `${c}: ${n}`);
  assert.equal(generatePassword(32).length, 32);
  assert.throws(() => generatePassword(19), /use at least 20/);
});

Deno.test("ARGON2_PARAMETERS are the server's fixed parameters", () => {
  assert.deepEqual({ ...ARGON2_PARAMETERS }, {
    memorySize: 19456,
    iterations: 2,
    parallelism: 1,
    hashLength: 32,
    saltLength: 16,
  });
  assert.ok(Object.isFrozen(ARGON2_PARAMETERS));
});
