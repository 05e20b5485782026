import assert from "node:assert/strict";
import { join } from "node:path";
import { memoryLogger } from "../log/logger.ts";
import { makeTestCertificates } from "../upstream/testdata/certs.ts";
import { CertificateReloader } from "./certificate_reloader.ts";
import { CertificateError } from "./certificate_pair.ts";

async function files() {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-reload-" });
  const certFile = join(dir, "tls.crt");
  const keyFile = join(dir, "tls.key");
  const write = async (pair: { cert: string; key: string }) => {
    await Deno.writeTextFile(keyFile, pair.key);
    await Deno.writeTextFile(certFile, pair.cert);
  };
  return {
    dir,
    certFile,
    keyFile,
    write,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

async function until(done: () => boolean, what: string) {
  for (let i = 0; i < 100 && !done(); i++) {
    await new Promise((r) => setTimeout(r, 30));
  }
  assert.ok(done(), what);
}

Deno.test("CertificateReloader serves a rotated pair once both files changed, and keeps the old one on a half-rotated pair", async () => {
  await using f = await files();
  const first = await makeTestCertificates();
  await f.write(first);
  const logger = memoryLogger();
  const reloader = await CertificateReloader.open(f.certFile, f.keyFile, {
    logger,
    watch: false,
  });
  try {
    const seen: string[] = [];
    reloader.onChange((next) => seen.push(next.pair.cert));
    assert.equal(reloader.current().pair.cert, first.cert);

    // The new certificate is in place, its key is not yet.
    const second = await makeTestCertificates();
    await Deno.writeTextFile(f.certFile, second.cert);
    await reloader.reload();
    assert.equal(reloader.current().pair.cert, first.cert);
    assert.deepEqual(seen, []);
    const warned = () =>
      logger.lines.map((l) => JSON.parse(l)).filter((r) => r.level === "warn");
    assert.equal(warned().length, 1);
    assert.match(String(warned()[0].why), /is not the key of/);
    // Logged once while it stays half-rotated.
    await reloader.reload();
    assert.equal(warned().length, 1);

    // The key follows: the new pair is served and announced.
    await Deno.writeTextFile(f.keyFile, second.key);
    await reloader.reload();
    assert.equal(reloader.current().pair.cert, second.cert);
    assert.deepEqual(seen, [second.cert]);
    // Nothing changed: nothing announced.
    await reloader.reload();
    assert.equal(seen.length, 1);

    // A file missing for a moment keeps the pair too.
    await Deno.remove(f.keyFile);
    await reloader.reload();
    assert.equal(reloader.current().pair.cert, second.cert);
  } finally {
    reloader.close();
  }
});

Deno.test("CertificateReloader sees a change through the file watch, without waiting for the poll", async () => {
  await using f = await files();
  await f.write(await makeTestCertificates());
  const reloader = await CertificateReloader.open(f.certFile, f.keyFile, {
    logger: memoryLogger(),
    pollMs: 3_600_000,
  });
  try {
    const next = await makeTestCertificates();
    // As a rotation tool does: new files renamed into place.
    await Deno.writeTextFile(join(f.dir, "new.key"), next.key);
    await Deno.writeTextFile(join(f.dir, "new.crt"), next.cert);
    await Deno.rename(join(f.dir, "new.key"), f.keyFile);
    await Deno.rename(join(f.dir, "new.crt"), f.certFile);
    await until(
      () => reloader.current().pair.cert === next.cert,
      "the watch picked the new pair up",
    );
  } finally {
    reloader.close();
  }
});

Deno.test("CertificateReloader.open refuses a pair that cannot be served, naming the file", async () => {
  await using f = await files();
  const a = await makeTestCertificates();
  const b = await makeTestCertificates();
  await f.write({ cert: a.cert, key: b.key });
  await assert.rejects(
    () =>
      CertificateReloader.open(f.certFile, f.keyFile, {
        logger: memoryLogger(),
        watch: false,
      }),
    (e: Error) =>
      e instanceof CertificateError && e.message.includes(f.keyFile) &&
      e.message.includes("is not the key of"),
  );
  await Deno.writeTextFile(f.certFile, "not a certificate\n");
  await assert.rejects(
    () =>
      CertificateReloader.open(f.certFile, f.keyFile, {
        logger: memoryLogger(),
        watch: false,
      }),
    /holds no PEM certificate/,
  );
  await assert.rejects(
    () =>
      CertificateReloader.open(join(f.dir, "missing.crt"), f.keyFile, {
        logger: memoryLogger(),
        watch: false,
      }),
    /Cannot read .*missing\.crt/,
  );
});
