/**
 * End to end: `kudurru serve` started exactly as `deno task serve` starts it
 * (same permission flags, read from deno.json), on embedded defaults except
 * for where the data and objects live.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { freePort } from "../src/testing/free_port.ts";
import { query } from "../src/testing/dns_client.ts";
import {
  LogReader,
  runKudurru,
  serveTaskFlags,
} from "../src/testing/serve_process.ts";
import {
  loadCacheDump,
  LOCAL_DB_FILE,
  saveCacheDump,
} from "../src/server/local_db.ts";
import { memoryLogger } from "../src/log/logger.ts";
import type { SerializedEntry } from "../src/pipeline/cache_dump.ts";

const ROOT = join(import.meta.dirname!, "..");
const MAIN = join(ROOT, "main.ts");

const kudurru = (cwd: string, ...args: string[]) => runKudurru(cwd, args);

/**
 * Only where data and objects live and the ports differ from the embedded
 * defaults: as root those would be /var/lib/kudurru, /etc/kudurru and
 * 0.0.0.0:53.
 */
function serveEnv(dns: number, ops: number, metrics: number) {
  return {
    NO_COLOR: "1",
    KUDURRU_NODE__DATADIR: "data",
    KUDURRU_OBJECTSDIR: "objects.d",
    KUDURRU_LISTENERS__DNS: `127.0.0.1:${dns}`,
    KUDURRU_LISTENERS__OPS__ADDRESS: `127.0.0.1:${ops}`,
    KUDURRU_LISTENERS__METRICS__ADDRESS: `127.0.0.1:${metrics}`,
    KUDURRU_LISTENERS__API__ADDRESS: `127.0.0.1:${freePort()}`,
  };
}

/** objects.d/zones.yaml in `cwd`, declaring the primary zone example.org. */
async function writeExampleZone(cwd: string): Promise<void> {
  await Deno.mkdir(join(cwd, "objects.d"));
  await Deno.writeTextFile(
    join(cwd, "objects.d", "zones.yaml"),
    "apiVersion: kudurru.io/v1alpha1\nkind: DNSZone\nmetadata: { name: example-org }\n" +
      "spec: { zoneName: example.org., type: primary }\n",
  );
}

async function zoneNames(cwd: string): Promise<string[]> {
  const got = await kudurru(
    cwd,
    "get",
    "zones",
    "-o",
    "json",
    "--data-dir",
    "data",
  );
  assert.equal(got.code, 0, got.stderr);
  return JSON.parse(got.stdout).items.map((z: { spec: { zoneName: string } }) =>
    z.spec.zoneName
  ).sort();
}

Deno.test("kudurru serve seeds first boot, loads objects.d, survives a broken file and stops on SIGTERM", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "kudurru-serve-" });
  try {
    await writeExampleZone(cwd);
    await Deno.writeTextFile(
      join(cwd, "objects.d", "broken.yaml"),
      "kind: [unclosed\n",
    );
    // A query log that is no database must not keep DNS from starting,
    // nor silence the log: it is moved aside and a new one started.
    await Deno.mkdir(join(cwd, "data"));
    await Deno.writeTextFile(join(cwd, "data", "querylog.db"), "not sqlite");

    const dnsPort = freePort();
    const opsPort = freePort();
    const metricsPort = freePort();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...serveTaskFlags(), MAIN, "serve"],
      cwd,
      env: serveEnv(dnsPort, opsPort, metricsPort),
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const log = new LogReader(child.stderr);
    const stdout = new LogReader(child.stdout);
    try {
      await log.waitFor(/kudurru is running/);
      assert.match(log.text, /first boot/);
      assert.match(
        log.text,
        /broken\.yaml/,
        "the broken file's diagnosis is logged",
      );
      assert.match(
        log.text,
        /The query log was damaged; moved it aside and started a new one/,
      );
      const kept = [...Deno.readDirSync(join(cwd, "data"))].map((e) => e.name);
      assert.ok(kept.some((name) => name.startsWith("querylog.db.damaged-")));
      assert.deepEqual(await zoneNames(cwd), [".", "example.org."]);

      // The zone from objects.d answers over UDP and TCP; the controller
      // stamps its serial from the clock shortly after the first load.
      const stampedBy = Date.now() + 10_000;
      for (const tcp of [false, true]) {
        while (true) {
          const soa = await query(dnsPort, "Example.ORG.", "SOA", { tcp })
            .catch((e) => {
              throw new Error(`${e.message}; log:\n${log.text}`);
            });
          assert.equal(soa.rcode, "NOERROR");
          assert.ok(soa.flag_aa, "authoritative");
          assert.equal(
            soa.answers[0]?.name,
            "Example.ORG",
            "the question's case is kept",
          );
          const serial = (soa.answers[0]?.data as { serial: number }).serial;
          if (serial > 1_700_000_000) break;
          assert.ok(
            Date.now() < stampedBy,
            `serial still ${serial}; log:\n${log.text}`,
          );
          await new Promise((r) => setTimeout(r, 100));
        }
      }

      // Ready, and the queries above are in the metrics (workers report
      // about once a second).
      const ready = await fetch(`http://127.0.0.1:${opsPort}/healthz/ready`);
      assert.equal(ready.status, 200, await ready.text());
      const health = await kudurru(
        cwd,
        "health",
        "--ready",
        "--url",
        `http://127.0.0.1:${opsPort}`,
      );
      assert.equal(health.code, 0, health.stdout + health.stderr);
      const metricsDeadline = Date.now() + 5_000;
      while (true) {
        const text = await (await fetch(
          `http://127.0.0.1:${metricsPort}/metrics`,
        )).text();
        const soaQueries = [
          ...text.matchAll(
            /^kudurru_dns_queries_total\{[^}]*qtype="SOA"[^}]*\} (\d+)$/gm,
          ),
        ].reduce((sum, m) => sum + Number(m[1]), 0);
        if (soaQueries >= 2) break;
        assert.ok(Date.now() < metricsDeadline, `metrics:\n${text}`);
        await new Promise((r) => setTimeout(r, 200));
      }

      // A second server on the same data directory refuses to start.
      const second = new Deno.Command(Deno.execPath(), {
        args: ["run", ...serveTaskFlags(), MAIN, "serve"],
        cwd,
        env: serveEnv(freePort(), freePort(), freePort()),
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const secondKiller = setTimeout(() => second.kill("SIGKILL"), 30_000);
      const secondOut = await second.output();
      clearTimeout(secondKiller);
      assert.equal(secondOut.code, 1, "the second server exits 1");
      assert.match(
        new TextDecoder().decode(secondOut.stderr),
        /Another kudurru serves the data directory "data"/,
      );

      // SIGHUP (a terminal closing, `systemctl reload`) is logged, not fatal.
      child.kill("SIGHUP");
      await log.waitFor(/SIGHUP ignored/);

      // The CLI reaches the running server through the control socket.
      const flushed = await kudurru(
        cwd,
        "cache",
        "flush",
        "--data-dir",
        "data",
      );
      assert.equal(flushed.code, 0, flushed.stderr);
      assert.match(
        flushed.stdout,
        /Flushed \d+ cached answers? from the running server/,
      );

      // A file added while running is picked up by the watch.
      await Deno.writeTextFile(
        join(cwd, "objects.d", "more.yaml"),
        "apiVersion: kudurru.io/v1alpha1\nkind: DNSZone\nmetadata: { name: example-net }\n" +
          "spec: { zoneName: example.net., type: primary }\n",
      );
      const deadline = Date.now() + 10_000;
      while (!(await zoneNames(cwd)).includes("example.net.")) {
        assert.ok(
          Date.now() < deadline,
          `example.net. never appeared; log:\n${log.text}`,
        );
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      try {
        child.kill("SIGTERM");
      } catch {
        // it exited on its own: the exit code below says how
      }
      const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      const status = await child.status;
      clearTimeout(killer);
      assert.ok(
        status.signal !== "SIGKILL",
        `SIGTERM did not stop kudurru; log:\n${log.text}`,
      );
      await log.done();
      await stdout.done();
      assert.equal(status.code, 0, `exit code; log:\n${log.text}`);
      assert.match(log.text, /Lameduck/, "SIGTERM enters lameduck first");
    }
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("kudurru serve stopped while it starts exits 0, says so, and keeps the saved cache", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "kudurru-serve-early-" });
  // Accepts and never answers: with initStrategy blocking, startup waits
  // here (up to the fetch timeout) until the test stops it.
  const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of silent) held.push(conn);
  })();
  try {
    await Deno.mkdir(join(cwd, "objects.d"));
    await Deno.writeTextFile(
      join(cwd, "objects.d", "list.yaml"),
      "apiVersion: kudurru.io/v1alpha1\nkind: BlockList\nmetadata: { name: slow }\n" +
        `spec: { sources: [{ url: "http://127.0.0.1:${
          (silent.addr as Deno.NetAddr).port
        }/list.txt" }] }\n`,
    );
    await Deno.mkdir(join(cwd, "data"));
    const dumpPath = join(cwd, "data", LOCAL_DB_FILE);
    saveCacheDump(dumpPath, [savedAnswer()]);
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...serveTaskFlags(), MAIN, "serve"],
      cwd,
      env: {
        ...serveEnv(freePort(), freePort(), freePort()),
        KUDURRU_BLOCKING__INITSTRATEGY: "blocking",
      },
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const log = new LogReader(child.stderr);
    await log.waitFor(/fetching block lists/);
    child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const status = await child.status;
    clearTimeout(killer);
    await log.done();
    assert.equal(status.code, 0, `exit code; log:\n${log.text}`);
    assert.match(log.text, /Stop requested during startup/);
    assert.equal(
      loadCacheDump(dumpPath, { logger: memoryLogger() }).length,
      1,
      "the saved cache is still there for the next start",
    );
  } finally {
    silent.close();
    for (const conn of held) conn.close();
    await accepting.catch(() => {});
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("kudurru serve in lameduck fails the DNS health check and still answers its zones", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "kudurru-lameduck-" });
  try {
    await writeExampleZone(cwd);
    const dnsPort = freePort();
    const opsPort = freePort();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...serveTaskFlags(), MAIN, "serve"],
      cwd,
      env: serveEnv(dnsPort, opsPort, freePort()),
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const log = new LogReader(child.stderr);
    let status: Deno.CommandStatus | undefined;
    try {
      await log.waitFor(/kudurru is running/);
      const before = await query(dnsPort, "health.kudurru.internal.", "TXT");
      assert.equal(before.rcode, "NOERROR", "healthy while running");

      child.kill("SIGTERM");
      await log.waitFor(/Lameduck/);
      // The grace period is 5 s: both answers come well within it.
      const health = await query(dnsPort, "health.kudurru.internal.", "TXT");
      assert.equal(health.rcode, "SERVFAIL", "the health check fails");
      const zone = await query(dnsPort, "example.org.", "SOA");
      assert.equal(zone.rcode, "NOERROR", "the zone is still answered");
      assert.ok(zone.flag_aa);
      const ready = await fetch(`http://127.0.0.1:${opsPort}/healthz/ready`);
      assert.equal(ready.status, 503, await ready.text());
    } finally {
      try {
        child.kill("SIGTERM");
      } catch {
        // it exited on its own
      }
      const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      status = await child.status;
      clearTimeout(killer);
      await log.done();
    }
    assert.equal(status.code, 0, `exit code; log:\n${log.text}`);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

/** One cached answer as local.db keeps it, valid for an hour. */
function savedAnswer(): SerializedEntry {
  const now = Date.now();
  return {
    key: "www.example.org.|1|1",
    name: "www.example.org.",
    wire: new Uint8Array([0, 1, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0]),
    offsets: [],
    ttls: [],
    storedAt: now,
    expiresAt: now + 3_600_000,
    staleUntil: now + 7_200_000,
    ttl: 3600,
    negative: false,
  };
}

Deno.test("kudurru rejects an unknown command or flag with exit code 2", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "kudurru-cli-" });
  try {
    const unknown = await kudurru(cwd, "serv");
    assert.equal(unknown.code, 2);
    assert.match(
      unknown.stderr,
      /unknown command "serv" \(did you mean "serve"\?\)/,
    );
    const badFlag = await kudurru(cwd, "get", "zones", "--colour");
    assert.equal(badFlag.code, 2);
    assert.match(badFlag.stderr, /kudurru get: .*--colour/);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("kudurru serve with listeners.ffiSockets but without --allow-ffi exits 1 and says what to add", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "kudurru-serve-ffi-" });
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...serveTaskFlags(), MAIN, "serve"],
      cwd,
      env: {
        ...serveEnv(freePort(), freePort(), freePort()),
        KUDURRU_LISTENERS__FFISOCKETS: "true",
      },
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    const out = await child.output();
    clearTimeout(killer);
    const log = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 1, log);
    assert.match(
      log,
      /Cannot listen on 127\.0\.0\.1:\d+\/udp: listeners\.ffiSockets needs --allow-ffi/,
    );
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});
