import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { memoryLogger } from "../log/logger.ts";
import { selfSignedDnsFiles } from "./self_signed_dns.ts";
import { readCertificatePair } from "./certificate_pair.ts";
import { DnsCertificates } from "./dns_certificates.ts";

const DAY_MS = 86_400_000;

async function openssl(args: string[]): Promise<string> {
  const out = await new Deno.Command("openssl", { args, stdout: "piped" })
    .output();
  return new TextDecoder().decode(out.stdout);
}

Deno.test("selfSignedDnsFiles makes a CA and a leaf it signs, kept across starts, made again when the names change or time runs out", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "kudurru-selfsigned-" });
  try {
    const opts = {
      dataDir,
      hostname: "node-a",
      clientIdDomain: "dns.example",
      logger: memoryLogger(),
    };
    const files = await selfSignedDnsFiles(opts);
    const pair = await readCertificatePair(files.certFile, files.keyFile);
    assert.match(pair.names, /DNS:node-a/);
    assert.match(pair.names, /DNS:\*\.dns\.example/);
    assert.match(pair.names, /IP Address:127\.0\.0\.1/);
    const leaf = new X509Certificate(pair.pair.cert);
    assert.equal(leaf.ca, false, "Deno's QUIC refuses a CA as server");
    const ca = new X509Certificate(await Deno.readTextFile(files.caFile));
    assert.equal(ca.ca, true);
    assert.ok(leaf.verify(ca.publicKey));
    assert.match(
      await openssl(["verify", "-CAfile", files.caFile, files.certFile]),
      /: OK/,
    );
    assert.equal((await Deno.stat(files.keyFile)).mode! & 0o777, 0o600);

    // Kept: the same files on the next start.
    await selfSignedDnsFiles(opts);
    assert.equal(await Deno.readTextFile(files.certFile), pair.pair.cert);

    // Another client-ID domain: a new leaf from the same CA.
    await selfSignedDnsFiles({ ...opts, clientIdDomain: "doh.example" });
    const renamed = new X509Certificate(
      await Deno.readTextFile(files.certFile),
    );
    assert.match(renamed.subjectAltName ?? "", /\*\.doh\.example/);
    assert.ok(renamed.verify(ca.publicKey));

    // 20 days before the leaf expires: made again.
    const late = Date.parse(renamed.validTo) - 20 * DAY_MS;
    await selfSignedDnsFiles({
      ...opts,
      clientIdDomain: "doh.example",
      now: late,
    });
    const renewed = new X509Certificate(
      await Deno.readTextFile(files.certFile),
    );
    assert.ok(Date.parse(renewed.validTo) > Date.parse(renamed.validTo));
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("DnsCertificates shares one reloader per pair of files and reports when each expires", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "kudurru-certs-" });
  const certificates = new DnsCertificates({
    dataDir,
    hostname: "node-a",
    clientIdDomain: "",
    logger: memoryLogger(),
  });
  try {
    const auto = { auto: "selfsigned" as const, certFile: "", keyFile: "" };
    const a = await certificates.reloaderFor(auto);
    const b = await certificates.reloaderFor(auto);
    assert.equal(a, b);
    const files = {
      auto: "none" as const,
      certFile: a.certFile,
      keyFile: a.keyFile,
    };
    assert.equal(await certificates.reloaderFor(files), a);
    const expiries = certificates.expiries();
    assert.equal(expiries.length, 1);
    assert.equal(expiries[0]!.certFile, a.certFile);
    assert.ok(expiries[0]!.notAfter.getTime() > Date.now() + 800 * DAY_MS);
    await assert.rejects(
      () =>
        certificates.reloaderFor({
          auto: "none",
          certFile: `${dataDir}/none.crt`,
          keyFile: `${dataDir}/none.key`,
        }),
      /Cannot read/,
    );
  } finally {
    certificates.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
