/**
 * Knot as a secondary of kudurru, with a key made the way
 * `kudurru tsig generate` makes it: the zone comes over by transfer, a
 * record changed in kudurru's objects reaches Knot within seconds by
 * NOTIFY and IXFR, and then Knot answers the new record with kudurru's
 * serial. A secondary with the wrong secret gets nothing.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import YAML from "yaml";
import type { KObject } from "../../src/api/v1alpha1/meta.ts";
import { API_VERSION } from "../../src/api/v1alpha1/meta.ts";
import { freePort } from "../../src/testing/free_port.ts";
import { serveTaskFlags } from "../../src/testing/serve_process.ts";
import { startKudurru } from "../../src/testing/kudurru_server.ts";
import { startKnotSecondary } from "./knot_notify.ts";
import { startBindSecondary } from "./bind_secondary.ts";

const ZONE = "xfr.test.";

/** A key as `kudurru tsig generate xfr.test.` prints it. */
async function generatedKey(): Promise<{ text: string; secret: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-env",
      join(import.meta.dirname!, "..", "..", "main.ts"),
      "tsig",
      "generate",
      "transfer.xfr.test",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return { text, secret: /secret "([^"]+)"/.exec(text)![1]! };
}

function objects(knotPort: number, address: string): KObject[] {
  return [{
    apiVersion: API_VERSION,
    kind: "DNSZone",
    metadata: { name: "xfr-test" },
    spec: {
      zoneName: ZONE,
      type: "primary",
      nameservers: [`ns1.${ZONE}`],
      soa: {
        mname: `ns1.${ZONE}`,
        rname: `hostmaster.${ZONE}`,
        refresh: 3600,
        retry: 600,
        expire: 86400,
        minimum: 300,
      },
      policy: {
        zoneTransfer: "useNetworkACL",
        transferACL: ["127.0.0.1"],
        transferTSIGKeyRefs: ["xfr"],
        notify: "specified",
        notifyTargets: [`127.0.0.1:${knotPort}`],
      },
    },
  }, {
    apiVersion: API_VERSION,
    kind: "DNSRecordSet",
    metadata: { name: "hosts", namespace: "default" },
    spec: {
      zoneRef: { name: "xfr-test" },
      endpoints: [
        { dnsName: `ns1.${ZONE}`, recordType: "A", targets: ["127.0.0.1"] },
        { dnsName: `www.${ZONE}`, recordType: "A", targets: [address] },
      ],
    },
  }];
}

async function dig(
  port: number,
  name: string,
  type: string,
): Promise<string[]> {
  const out = await new Deno.Command("dig", {
    args: [
      "-p",
      String(port),
      "@127.0.0.1",
      "+short",
      "+tries=1",
      "+time=2",
      name,
      type,
    ],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout).trim().split("\n").filter((l) =>
    l !== ""
  );
}

/** Waits for `check`; a timeout says what Knot logged. */
async function until(
  what: string,
  check: () => Promise<boolean>,
  log: () => string,
  ms = 20_000,
) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}; Knot logged:\n${log()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * kudurru serving the zone with `keyFile` as its key, and Knot as its
 * secondary with `knotSecret` (the same key's secret, or not).
 */
async function kudurruAndKnot(keyFile: string, knotSecret: string) {
  const knotPort = freePort();
  const kudurru = await startKudurru({
    objects: objects(knotPort, "192.0.2.1"),
    readyZone: ZONE,
    upstreamPort: freePort(),
    dataFiles: { "keys/tsig/xfr.key": keyFile },
  });
  try {
    const knot = await startKnotSecondary({
      zone: ZONE,
      key: {
        name: "transfer.xfr.test.",
        algorithm: "hmac-sha256",
        secret: Uint8Array.fromBase64(knotSecret),
      },
      port: knotPort,
      primaryPort: kudurru.port,
    });
    return {
      kudurru,
      knot,
      knotPort,
      async [Symbol.asyncDispose]() {
        await knot.stop();
        await kudurru.stop();
      },
    };
  } catch (error) {
    await kudurru.stop();
    throw error;
  }
}

const serialOf = async (port: number) =>
  Number((await dig(port, ZONE, "SOA"))[0]?.split(" ")[2]);

Deno.test("interop Knot is a secondary of kudurru: transfer with the generated key, then NOTIFY and IXFR after a change", async () => {
  const key = await generatedKey();
  await using pair = await kudurruAndKnot(key.text, key.secret);
  const { kudurru, knot, knotPort } = pair;
  // Knot refreshes at start: kudurru's serial is newer than its file's 1.
  await until(
    "Knot to transfer the zone",
    async () => (await dig(knot.port, `www.${ZONE}`, "A"))[0] === "192.0.2.1",
    knot.output,
  );
  const first = await serialOf(kudurru.port);
  assert.equal(await serialOf(knot.port), first);

  // A change in kudurru's objects: a new serial, NOTIFY, IXFR.
  const file = join(dirname(kudurru.dataDir), "objects.d", "corpus.yaml");
  await Deno.writeTextFile(
    file,
    objects(knotPort, "192.0.2.2").map((o) => YAML.stringify(o)).join("---\n"),
  );
  const changedAt = Date.now();
  await until(
    "Knot to serve the change",
    async () => (await dig(knot.port, `www.${ZONE}`, "A"))[0] === "192.0.2.2",
    knot.output,
  );
  const took = Date.now() - changedAt;
  const second = await serialOf(kudurru.port);
  assert.ok(second > first, `${second} > ${first}`);
  assert.equal(await serialOf(knot.port), second);
  // Within seconds, by NOTIFY (Knot's refresh is an hour away), and as an
  // IXFR of the one change.
  assert.ok(took < 10_000, `${took} ms`);
  assert.match(knot.output(), /notify, incoming/i);
  assert.match(knot.output(), /IXFR, incoming[^\n]*started/);
  assert.doesNotMatch(knot.output(), /IXFR, incoming[^\n]*fallback to AXFR/i);
});

Deno.test("interop a secondary with the wrong secret gets no transfer from kudurru", async () => {
  const key = await generatedKey();
  const other = await generatedKey();
  await using pair = await kudurruAndKnot(key.text, other.secret);
  const { knot } = pair;
  await until(
    "Knot to give up on its refresh",
    () =>
      Promise.resolve(
        /refresh, remote .* failed|BADSIG|NOTAUTH/i.test(knot.output()),
      ),
    knot.output,
  );
  assert.equal(await serialOf(knot.port), 1);
  assert.deepEqual(await dig(knot.port, `www.${ZONE}`, "A"), []);
});

Deno.test("interop BIND is a secondary of kudurru: transfer with the generated key, then NOTIFY and IXFR after a record added with kudurru apply", async () => {
  const key = await generatedKey();
  const bindPort = freePort();
  await using kudurru = await startKudurru({
    objects: objects(bindPort, "192.0.2.1"),
    readyZone: ZONE,
    upstreamPort: freePort(),
    dataFiles: { "keys/tsig/xfr.key": key.text },
  });
  await using bind = await startBindSecondary({
    zone: ZONE,
    primaryPort: kudurru.port,
    keyStatement: key.text,
    port: bindPort,
  });
  await until(
    "BIND to serve kudurru's serial",
    async () =>
      (await dig(bind.port, `www.${ZONE}`, "A"))[0] === "192.0.2.1" &&
      await serialOf(bind.port) === await serialOf(kudurru.port),
    bind.output,
  );
  const first = await serialOf(kudurru.port);

  // A record added with `kudurru apply` beside the running server.
  const changedAt = Date.now();
  const applied = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...serveTaskFlags(),
      join(import.meta.dirname!, "..", "..", "main.ts"),
      "apply",
      "-f",
      "-",
      "--data-dir",
      "data",
    ],
    // The serve task may write ./data only: kudurru's own directory.
    cwd: dirname(kudurru.dataDir),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = applied.stdin.getWriter();
  await writer.write(new TextEncoder().encode(YAML.stringify({
    apiVersion: API_VERSION,
    kind: "DNSRecordSet",
    metadata: { name: "added", namespace: "default" },
    spec: {
      zoneRef: { name: "xfr-test" },
      endpoints: [{
        dnsName: `new.${ZONE}`,
        recordType: "A",
        targets: ["192.0.2.9"],
      }],
    },
  })));
  await writer.close();
  const status = await applied.output();
  assert.ok(status.success, new TextDecoder().decode(status.stderr));
  await until(
    "BIND to serve the added record",
    async () => (await dig(bind.port, `new.${ZONE}`, "A"))[0] === "192.0.2.9",
    bind.output,
  );
  assert.ok(Date.now() - changedAt < 10_000);
  const second = await serialOf(kudurru.port);
  assert.ok(second > first);
  assert.equal(await serialOf(bind.port), second);
  assert.match(bind.output(), /received notify for zone/i);
  // The change came as an IXFR: five records (the new SOA, the old SOA, the
  // new SOA, the record added, the new SOA), where the whole zone is six.
  const completed = bind.output().split("\n").filter((l) =>
    l.includes("Transfer completed")
  );
  assert.match(completed.at(-1)!, new RegExp(`5 records.*serial ${second}`));
});
