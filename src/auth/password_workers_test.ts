import assert from "node:assert/strict";
import { argon2id, argon2Verify } from "hash-wasm";
import { PasswordWorkerError, PasswordWorkers } from "./password_workers.ts";

const MISBEHAVING = new URL(
  "./testdata/misbehaving_password_worker.ts",
  import.meta.url,
);

/** Polls `condition` every 10 ms for up to `ms`. */
async function eventually(condition: () => boolean, ms = 5_000) {
  const until = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > until) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

Deno.test("password Workers hash and verify off the main thread, one job per Worker at once", async () => {
  const workers = new PasswordWorkers({ size: 2 });
  try {
    const encoded = await workers.run({ op: "hash", password: "a passphrase" });
    assert.match(encoded, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.equal(workers.workers, 1);

    // Two jobs at once run in two Workers; a 2 ms timer keeps ticking.
    let ticks = 0;
    let last = performance.now();
    let blocked = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      if (now - last > 10) blocked += now - last;
      last = now;
      ticks++;
    }, 2);
    const began = performance.now();
    const right = workers.run({
      op: "verify",
      password: "a passphrase",
      encoded,
    });
    const wrong = workers.run({
      op: "verify",
      password: "a passphrasf",
      encoded,
    });
    assert.equal(workers.running, 2);
    assert.equal(workers.workers, 2);
    const results = await Promise.all([right, wrong]);
    for (let i = 0; i < 4; i++) {
      await workers.run({ op: "verify", password: `guess ${i}`, encoded });
    }
    const elapsed = performance.now() - began;
    clearInterval(timer);
    assert.deepEqual(results, [true, false]);
    // On the main thread, hash-wasm blocked the loop ~95 % of the time.
    assert.ok(
      blocked / elapsed < 0.5 && ticks > 10,
      `the loop was blocked ${blocked.toFixed(0)} of ${
        elapsed.toFixed(0)
      } ms (${ticks} ticks)`,
    );
    assert.equal(workers.running, 0);
  } finally {
    workers.close();
  }
});

Deno.test("a password Worker, which keeps one Argon2 instance, agrees with hash-wasm over changing parameters", async () => {
  const workers = new PasswordWorkers({ size: 1 });
  try {
    // Memory sizes up and down, lanes, passes: the kept instance's memory
    // grows, is reused for smaller hashes, and is zeroed for each (hash-wasm
    // computes another hash over blocks an earlier one left).
    const cases = [
      { memorySize: 19_456, iterations: 2, parallelism: 1 },
      { memorySize: 65_536, iterations: 1, parallelism: 4 },
      { memorySize: 4_096, iterations: 3, parallelism: 1 },
      { memorySize: 32_768, iterations: 1, parallelism: 2 },
      { memorySize: 64, iterations: 1, parallelism: 1 },
      { memorySize: 19_456, iterations: 2, parallelism: 4 },
      { memorySize: 19_456, iterations: 2, parallelism: 1 },
    ];
    for (const [i, parameters] of cases.entries()) {
      const password = `password ${i} ✓`;
      const stored = await argon2id({
        ...parameters,
        password,
        salt: crypto.getRandomValues(new Uint8Array(16)),
        hashLength: 32,
        outputType: "encoded",
      });
      const check = (guess: string) =>
        workers.run({ op: "verify", password: guess, encoded: stored });
      assert.equal(await check(password), true, JSON.stringify(parameters));
      assert.equal(await check(`${password}.`), false);
      // And the other way round: hash-wasm verifies what the Worker makes.
      const made = await workers.run({ op: "hash", password });
      assert.equal(await argon2Verify({ password, hash: made }), true);
    }
    assert.equal(workers.workers, 1);
  } finally {
    workers.close();
  }
});

Deno.test("a password Worker refuses a stored hash it may not verify", async () => {
  const workers = new PasswordWorkers({ size: 1 });
  try {
    await assert.rejects(
      workers.run({
        op: "verify",
        password: "x",
        encoded:
          "$argon2id$v=19$m=4194304,t=2,p=1$AAAAAAAAAAAAAAAAAAAAAA$qu7YaNBUVdA7W90s0oDV3Q/BGYy/YVhx+BlWYiF8kZ8",
      }),
      {
        message:
          "Cannot verify the password: the stored hash asks for 4194304 KiB of memory (at most 65536); reset the password",
      },
    );
    // The Worker is fine and stays.
    assert.equal(workers.workers, 1);
  } finally {
    workers.close();
  }
});

Deno.test("a password Worker that crashes fails its job at once and is replaced", async () => {
  const workers = new PasswordWorkers({ size: 2, url: MISBEHAVING });
  try {
    assert.equal(
      await workers.run({ op: "hash", password: "fine" }),
      "hashed:fine",
    );
    await assert.rejects(
      workers.run({ op: "hash", password: "crash" }),
      (err: unknown) => {
        assert.ok(err instanceof PasswordWorkerError);
        assert.match(
          err.message,
          /^Cannot hash the password: its worker crashed \(.*a crash on purpose.*\); the next request starts a new worker$/,
        );
        return true;
      },
    );
    assert.equal(workers.workers, 0);
    assert.equal(
      await workers.run({ op: "hash", password: "after" }),
      "hashed:after",
    );
    assert.equal(workers.workers, 1);
  } finally {
    workers.close();
  }
});

Deno.test("a password Worker that ends without answering fails its job", async () => {
  const workers = new PasswordWorkers({ size: 1, url: MISBEHAVING });
  try {
    await assert.rejects(
      workers.run({ op: "verify", password: "exit", encoded: "" }),
      {
        name: "PasswordWorkerError",
        message:
          "Cannot verify the password: its worker stopped (exit code 0); the next request starts a new worker",
      },
    );
    assert.equal(workers.workers, 0);
    assert.equal(
      await workers.run({ op: "hash", password: "again" }),
      "hashed:again",
    );
  } finally {
    workers.close();
  }
});

Deno.test("a password job with no answer in time fails and its Worker ends; the queue moves on", async () => {
  const workers = new PasswordWorkers({
    size: 1,
    url: MISBEHAVING,
    jobTimeoutMs: 200,
  });
  try {
    const hung = workers.run({ op: "hash", password: "hang" });
    // Queued behind it in the one Worker's lane.
    const next = workers.run({ op: "hash", password: "next" });
    await assert.rejects(hung, {
      name: "PasswordWorkerError",
      message:
        "Cannot hash the password: no answer from its worker within 200 ms; the next request starts a new worker",
    });
    assert.equal(await next, "hashed:next");
    assert.equal(workers.workers, 1);
  } finally {
    workers.close();
  }
});

Deno.test("an idle password Worker ends after idleMs; busy, it stays", async () => {
  const workers = new PasswordWorkers({
    size: 1,
    url: MISBEHAVING,
    idleMs: 100,
  });
  try {
    assert.equal(await workers.run({ op: "hash", password: "a" }), "hashed:a");
    assert.equal(workers.workers, 1);
    await eventually(() => workers.workers === 0);
    assert.equal(await workers.run({ op: "hash", password: "b" }), "hashed:b");
    assert.equal(workers.workers, 1);
  } finally {
    workers.close();
  }
});

Deno.test("closing the password Workers fails the jobs in flight; the pool starts new Workers after", async () => {
  const workers = new PasswordWorkers({ size: 1, url: MISBEHAVING });
  const hung = workers.run({ op: "hash", password: "hang" });
  const queued = workers.run({ op: "verify", password: "x", encoded: "" });
  workers.close();
  await assert.rejects(hung, {
    name: "PasswordWorkerError",
    message:
      "Cannot hash the password: the password workers were closed; the next request starts a new worker",
  });
  await assert.rejects(queued, {
    name: "PasswordWorkerError",
    message: "Cannot verify the password: the password workers were closed",
  });
  assert.equal(workers.workers, 0);
  try {
    assert.equal(await workers.run({ op: "hash", password: "c" }), "hashed:c");
  } finally {
    workers.close();
  }
});

Deno.test("a password Worker that cannot start fails the job with the reason", async () => {
  const workers = new PasswordWorkers({
    size: 1,
    // node:worker_threads takes file: and data: URLs only.
    url: new URL("https://kudurru.invalid/password_worker.ts"),
  });
  try {
    await assert.rejects(
      workers.run({ op: "hash", password: "x" }),
      (err: unknown) => {
        assert.ok(err instanceof PasswordWorkerError, String(err));
        assert.match(
          err.message,
          /^Cannot hash the password: cannot start a password worker: \S/,
        );
        return true;
      },
    );
    assert.equal(workers.workers, 0);
  } finally {
    workers.close();
  }
});

Deno.test("a process that hashed a password ends without waiting for the idle Workers", async () => {
  const script = `
    import { hashPassword, verifyPassword } from ${
    JSON.stringify(new URL("./password.ts", import.meta.url).href)
  };
    const stored = await hashPassword("a passphrase");
    if (!await verifyPassword("a passphrase", stored)) Deno.exit(3);
    console.log("hashed");
  `;
  const began = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-check", "--allow-read", "--allow-env", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(script));
  await writer.close();
  const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const out = await child.output();
  clearTimeout(killer);
  const seconds = (performance.now() - began) / 1000;
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.equal(new TextDecoder().decode(out.stdout), "hashed\n");
  // The Workers say idle after 30 s: ending well before is ending at once.
  assert.ok(seconds < 15, `took ${seconds.toFixed(1)} s`);
});
