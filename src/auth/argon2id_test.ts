import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";
import { argon2id } from "hash-wasm";
import {
  argon2idHash,
  argon2idMatches,
  argon2Parameters,
  verifiable,
} from "./argon2id.ts";

Deno.test("one kept Argon2 instance hashes as new ones do, whatever hashed before", async () => {
  const shapes = [
    { memorySize: 19_456, iterations: 2, parallelism: 1 },
    { memorySize: 65_536, iterations: 1, parallelism: 4 },
    { memorySize: 4_096, iterations: 3, parallelism: 1 },
    { memorySize: 64, iterations: 1, parallelism: 1 },
  ];
  // Each shape twice, the second time over blocks another hash left.
  const cases = [...shapes, ...shapes.toReversed(), ...shapes];
  const expected: string[] = [];
  for (const [i, c] of cases.entries()) {
    expected.push(
      await argon2id({
        ...c,
        password: `password ${i}`,
        salt: new Uint8Array(16).fill(i),
        hashLength: 32,
        outputType: "encoded",
      }),
    );
  }
  const worker = new Worker(
    new URL("./testdata/argon2_reuse_worker.ts", import.meta.url),
  );
  try {
    const got = await new Promise<string[]>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
      worker.postMessage(cases);
    });
    assert.deepEqual(got, expected);
  } finally {
    await worker.terminate();
  }
});

Deno.test("argon2idMatches checks a PHC string's hash under its own salt and parameters", async () => {
  const stored = await argon2idHash("correct horse");
  assert.deepEqual(argon2Parameters(stored), {
    memorySize: 19_456,
    iterations: 2,
    parallelism: 1,
    saltLength: 16,
    hashLength: 32,
  });
  assert.equal(await argon2idMatches("correct horse", stored), true);
  assert.equal(await argon2idMatches("correct horsf", stored), false);
  // Another hash length: compared over its own length.
  const short = await argon2id({
    password: "x",
    salt: new Uint8Array(16),
    memorySize: 64,
    iterations: 1,
    parallelism: 1,
    hashLength: 16,
    outputType: "encoded",
  });
  assert.equal(await argon2idMatches("x", short), true);
  assert.equal(await argon2idMatches("y", short), false);
});

Deno.test("verifiable refuses what is not an Argon2id PHC string, or costs too much", () => {
  const tail =
    "$AAAAAAAAAAAAAAAAAAAAAA$qu7YaNBUVdA7W90s0oDV3Q/BGYy/YVhx+BlWYiF8kZ8";
  const ok = verifiable(`$argon2id$v=19$m=19456,t=2,p=1${tail}`);
  assert.equal(ok.salt.length, 16);
  assert.equal(ok.hash.length, 32);
  // 13 base64 characters are no whole number of bytes.
  assert.throws(
    () =>
      verifiable(
        "$argon2id$v=19$m=19456,t=2,p=1$AAAAAAAAAAAAA$qu7YaNBUVdA7W90s0oDV3Q/BGYy/YVhx+BlWYiF8kZ8",
      ),
    /not an Argon2id \(v=19\) PHC string/,
  );
  assert.throws(
    () => verifiable(`$argon2id$v=19$m=65537,t=2,p=1${tail}`),
    /65537 KiB of memory \(at most 65536\); reset the password$/,
  );
});
