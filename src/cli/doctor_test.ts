/**
 * `kudurru doctor` on real data directories, real sockets and a real
 * `kudurru serve`: what passes passes, and each broken part fails with a
 * message that says what is wrong.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import YAML from "yaml";
import { bufferIO } from "./command.ts";
import { runCli } from "./run.ts";
import type { Finding } from "./doctor_report.ts";
import { freePort } from "../testing/free_port.ts";
import {
  LOCAL_READY_ZONE,
  localReadyZoneObject,
  startKudurru,
} from "../testing/kudurru_server.ts";
import {
  answer,
  startUdpUpstream,
} from "../upstream/testdata/scripted_upstream.ts";
import { loadX509, privateKeyPem, randomSerial } from "../tls/x509.ts";
import { SCHEMA_VERSION } from "../store/store.ts";

const DAY_MS = 86_400_000;

async function doctor(args: string[]) {
  const b = bufferIO();
  const code = await runCli(["doctor", "--json", ...args], b.io);
  assert.equal(b.stderr(), "");
  const report = JSON.parse(b.stdout()) as {
    passed: boolean;
    findings: Finding[];
  };
  return { code, ...report };
}

/** The findings of one check. */
function of(findings: Finding[], check: string): Finding[] {
  return findings.filter((f) => f.check === check);
}

/** A config in `dir` with every listener on a free loopback port. */
async function writeConfig(
  dir: string,
  extra: { listeners?: Record<string, unknown>; upstreams?: unknown } = {},
): Promise<string> {
  const local = () => ({ address: `127.0.0.1:${freePort()}` });
  const path = join(dir, "kudurru.yaml");
  await Deno.writeTextFile(
    path,
    YAML.stringify({
      node: { name: "doctor-node", dataDir: join(dir, "data") },
      listeners: {
        dns: [{ address: `127.0.0.1:${freePort()}` }],
        api: local(),
        ops: local(),
        metrics: local(),
        ...extra.listeners,
      },
      upstreams: extra.upstreams ?? {
        groups: { default: { servers: ["127.0.0.1:53"] } },
        bootstrap: ["127.0.0.1:53"],
      },
    }),
  );
  return path;
}

async function withTempDir(fn: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-doctor-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A certificate and key valid from `from` to `to` (ms since the epoch). */
async function certificate(from: number, to: number) {
  const x509 = await loadX509();
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const keys = await crypto.subtle.generateKey(alg, true, ["sign", "verify"]);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: "CN=doctor.test",
    notBefore: new Date(from),
    notAfter: new Date(to),
    keys,
    signingAlgorithm: alg,
  });
  return {
    cert: cert.toString("pem"),
    key: await privateKeyPem(keys.privateKey),
  };
}

Deno.test({
  name:
    "kudurru doctor beside a running kudurru serve: every check passes, and the ports are the server's own",
  async fn() {
    const upstream = startUdpUpstream((q) => [{ message: answer(q) }]);
    try {
      await using server = await startKudurru({
        objects: [localReadyZoneObject()],
        readyZone: LOCAL_READY_ZONE,
        upstreamPort: upstream.port,
        nodeName: "doctor-node",
      });
      const config = join(server.dataDir, "..", "kudurru.yaml");
      const got = await doctor([
        "--config",
        config,
        "--data-dir",
        server.dataDir,
      ]);
      assert.equal(got.code, 0, JSON.stringify(got.findings, null, 2));
      // Disk space depends on the machine the test runs on; nothing else may
      // be short of ok.
      const notOk = got.findings.filter((f) =>
        f.verdict !== "ok" && f.check !== "disk space"
      );
      assert.deepEqual(notOk, []);
      for (
        const check of [
          "config",
          "data directory",
          "store",
          "query log",
          "port",
          "clock",
          "upstream",
          "leader",
        ]
      ) {
        assert.ok(of(got.findings, check).length > 0, `no ${check} finding`);
      }
      assert.match(
        of(got.findings, "store")[0]!.message,
        new RegExp(`schema version ${SCHEMA_VERSION}$`),
      );
      for (const port of of(got.findings, "port")) {
        assert.match(
          port.message,
          /the port of kudurru serve .*running on this data directory/,
        );
      }
      assert.match(
        of(got.findings, "upstream")[0]!.message,
        /answered ". NS" in \d+ ms/,
      );
      // The test's permissions reach only a few control sockets, so the
      // server is told here by the lock it holds, with its pid.
      assert.match(
        of(got.findings, "leader")[0]!.message,
        /^this node \(doctor-node\): .*kudurru serve \((pid \d+|started .*)\) holds them$/,
      );
    } finally {
      await upstream.close();
    }
  },
});

Deno.test("kudurru doctor without a server: a port another process holds fails as in use; the free ones pass", async () => {
  await withTempDir(async (dir) => {
    const port = freePort();
    const config = await writeConfig(dir, {
      listeners: { dns: [{ address: `127.0.0.1:${port}` }] },
    });
    using _taken = Deno.listen({ hostname: "127.0.0.1", port });
    const got = await doctor(["--config", config, "--offline"]);
    assert.equal(got.code, 1);
    assert.equal(got.passed, false);
    const ports = of(got.findings, "port");
    assert.deepEqual(
      ports.map((p) => [p.verdict, p.message.split(" (")[0]]),
      [
        ["ok", `udp 127.0.0.1:${port}`],
        ["fail", `tcp 127.0.0.1:${port}`],
        ["ok", ports[2]!.message.split(" (")[0]],
        ["ok", ports[3]!.message.split(" (")[0]],
        ["ok", ports[4]!.message.split(" (")[0]],
      ],
    );
    assert.match(
      ports[1]!.message,
      /\(listeners\.dns\[0\]\.address\): in use by another process: stop it/,
    );
    // The data directory does not exist yet: a warning, not a failure.
    assert.deepEqual(of(got.findings, "data directory").map((f) => f.verdict), [
      "warn",
    ]);
    assert.match(of(got.findings, "leader")[0]!.message, /^not running: /);
    assert.deepEqual(of(got.findings, "upstream").map((f) => f.verdict), [
      "skip",
    ]);
  });
});

Deno.test("kudurru doctor names the line of a configuration that does not parse, and still checks the data directory", async () => {
  await withTempDir(async (dir) => {
    const config = join(dir, "kudurru.yaml");
    await Deno.writeTextFile(config, "node:\n  name: [unclosed\n");
    const got = await doctor(["--config", config, "--data-dir", dir]);
    assert.equal(got.code, 1);
    const [finding] = of(got.findings, "config");
    assert.equal(finding!.verdict, "fail");
    assert.match(
      finding!.message,
      new RegExp(`^Cannot load "${config}": line \\d+, column \\d+: `),
    );
    assert.deepEqual(of(got.findings, "data directory").map((f) => f.verdict), [
      "ok",
      "ok",
    ]);
    assert.deepEqual(
      got.findings.filter((f) => f.verdict === "skip").map((f) => f.check),
      ["port", "certificate", "upstream"],
    );
  });
});

Deno.test("kudurru doctor fails an expired certificate and warns of one about to expire", async () => {
  await withTempDir(async (dir) => {
    const now = Date.now();
    const expired = await certificate(now - 30 * DAY_MS, now - DAY_MS);
    const soon = await certificate(now - DAY_MS, now + 3 * DAY_MS);
    for (const [name, pair] of Object.entries({ expired, soon })) {
      await Deno.writeTextFile(join(dir, `${name}.crt`), pair.cert);
      await Deno.writeTextFile(join(dir, `${name}.key`), pair.key);
    }
    const config = await writeConfig(dir, {
      listeners: {
        dot: [{
          address: `127.0.0.1:${freePort()}`,
          tls: {
            certFile: join(dir, "soon.crt"),
            keyFile: join(dir, "soon.key"),
          },
        }],
        api: {
          address: `127.0.0.1:${freePort()}`,
          tls: {
            certFile: join(dir, "expired.crt"),
            keyFile: join(dir, "expired.key"),
          },
        },
      },
    });
    const got = await doctor(["--config", config, "--offline"]);
    assert.equal(got.code, 1);
    const certs = of(got.findings, "certificate");
    assert.equal(certs.length, 2);
    assert.equal(certs[0]!.verdict, "warn");
    assert.match(
      certs[0]!.message,
      /soon\.crt \(listeners\.dot\[0\]\.tls\) expires in [23] days .*: renew it/,
    );
    assert.equal(certs[1]!.verdict, "fail");
    assert.match(
      certs[1]!.message,
      /expired\.crt \(listeners\.api\.tls\) expired at .*: renew it/,
    );

    // A key that is not the certificate's fails too, naming both files.
    await Deno.writeTextFile(join(dir, "expired.key"), soon.key);
    const mismatched = await doctor(["--config", config, "--offline"]);
    assert.match(
      of(mismatched.findings, "certificate")[1]!.message,
      /expired\.key is not the key of the certificate in .*expired\.crt/,
    );
  });
});

Deno.test("kudurru doctor asks each upstream server: one that answers passes, a closed port fails with the error", async () => {
  await withTempDir(async (dir) => {
    const upstream = startUdpUpstream((q) => [{ message: answer(q) }]);
    try {
      const closed = freePort();
      const config = await writeConfig(dir, {
        upstreams: {
          groups: {
            default: { servers: [`127.0.0.1:${upstream.port}`] },
            lab: { servers: [`tcp://127.0.0.1:${closed}`] },
          },
          bootstrap: [`127.0.0.1:${upstream.port}`],
        },
      });
      const got = await doctor(["--config", config]);
      assert.equal(got.code, 1);
      const [good, bad] = of(got.findings, "upstream");
      assert.equal(good!.verdict, "ok");
      assert.match(
        good!.message,
        new RegExp(
          `^upstreams\\.groups\\.default: 127\\.0\\.0\\.1:${upstream.port} answered`,
        ),
      );
      assert.equal(bad!.verdict, "fail");
      assert.match(
        bad!.message,
        new RegExp(
          `^upstreams\\.groups\\.lab: tcp://127\\.0\\.0\\.1:${closed} did not answer ". NS" \\(error: .*refused`,
          "i",
        ),
      );
    } finally {
      await upstream.close();
    }
  });
});

Deno.test("kudurru doctor fails a store written by a newer kudurru, and leaves it untouched", async () => {
  await withTempDir(async (dir) => {
    const data = join(dir, "data");
    await Deno.mkdir(data, { mode: 0o750 });
    await Deno.chmod(data, 0o750);
    const path = join(data, "state.db");
    const db = new DatabaseSync(path);
    db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    db.prepare("INSERT INTO meta VALUES ('schema_version', ?)").run(
      String(SCHEMA_VERSION + 1),
    );
    db.close();
    const before = await Deno.readFile(path);
    const config = await writeConfig(dir);
    const got = await doctor(["--config", config, "--offline"]);
    assert.equal(got.code, 1);
    const [store] = of(got.findings, "store");
    assert.equal(store!.verdict, "fail");
    assert.equal(
      store!.message,
      `${path} was written by a newer kudurru (schema version ${
        SCHEMA_VERSION + 1
      }; this one knows up to ${SCHEMA_VERSION}): run that kudurru, or restore a backup made by this one`,
    );
    assert.deepEqual(await Deno.readFile(path), before);
  });
});

Deno.test("kudurru doctor fails a world-writable data directory and prints one line per finding", async () => {
  await withTempDir(async (dir) => {
    const data = join(dir, "data");
    await Deno.mkdir(data);
    await Deno.chmod(data, 0o777);
    const b = bufferIO();
    const code = await runCli(
      ["doctor", "--config", await writeConfig(dir), "--offline"],
      b.io,
    );
    assert.equal(code, 1);
    assert.match(
      b.stdout(),
      new RegExp(
        `^fail  data directory +${data} is world-writable \\(mode 777\\): chmod 750 ${data}$`,
        "m",
      ),
    );
    assert.match(
      b.stdout(),
      /^\d+ failed, \d+ warnings, \d+ ok, 1 skipped\n$/m,
    );
  });
});
