/**
 * `kudurru serve` as a process, started as `deno task serve` starts it:
 * one server per data directory, the CLI beside a running server,
 * kudurru.yaml edits reported as pending rather than in force, a signal
 * while it stops, the log variables, the modes of what it creates, and
 * reading its files without write access.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { openSqliteStore } from "../src/store/sqlite/sqlite_store.ts";
import { freePort } from "../src/testing/free_port.ts";
import { query } from "../src/testing/dns_client.ts";
import {
  LogReader,
  runKudurru,
  serveTaskFlags,
} from "../src/testing/serve_process.ts";

const MAIN = join(import.meta.dirname!, "..", "main.ts");

/** The serve task's flags with `--allow-write` replaced by `write`. */
function flagsWritingOnly(write: string | undefined): string[] {
  return serveTaskFlags()
    .filter((f) => !f.startsWith("--allow-write"))
    .concat(write === undefined ? [] : [`--allow-write=${write}`]);
}

/** A `kudurru serve` child in `cwd`, its own ports, `env` added. */
function spawnServer(cwd: string, env: Record<string, string> = {}) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...serveTaskFlags(),
      MAIN,
      "serve",
      "--config",
      "kudurru.yaml",
    ],
    cwd,
    env: {
      NO_COLOR: "1",
      KUDURRU_LISTENERS__DNS: `127.0.0.1:${freePort()}`,
      KUDURRU_LISTENERS__OPS__ADDRESS: `127.0.0.1:${freePort()}`,
      KUDURRU_LISTENERS__METRICS__ADDRESS: `127.0.0.1:${freePort()}`,
      KUDURRU_LISTENERS__API__ADDRESS: `127.0.0.1:${freePort()}`,
      ...env,
    },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const log = new LogReader(child.stderr);
  let exited: Deno.CommandStatus | undefined;
  const status = child.status.then((s) => (exited = s));
  return {
    child,
    log,
    status,
    exited: () => exited,
    /** Stops it (SIGKILL if it will not), for `finally`. */
    async kill() {
      if (exited === undefined) {
        try {
          child.kill("SIGKILL");
        } catch {
          // already gone
        }
      }
      await status;
      await log.done();
    },
  };
}

/** A kudurru CLI command in `cwd`, with the serve task's flags or `flags`. */
const kudurru = runKudurru;

/** A directory with kudurru.yaml (data in ./data) and `extra` appended. */
async function serverDir(upstream: number, extra = ""): Promise<string> {
  const cwd = await Deno.makeTempDir({ prefix: "kudurru-lifecycle-" });
  await Deno.mkdir(join(cwd, "objects.d"));
  await Deno.writeTextFile(
    join(cwd, "kudurru.yaml"),
    `node: { dataDir: data }
objectsDir: objects.d
upstreams:
  groups: { default: { servers: ["127.0.0.1:${upstream}"], timeout: 10s } }
  bootstrap: ["127.0.0.1:${upstream}"]
${extra}`,
  );
  return cwd;
}

const mode = async (path: string) => (await Deno.stat(path)).mode! & 0o777;

Deno.test("two servers started together on one data directory: one serves, the other refuses; the CLI works beside it and reports kudurru.yaml edits as pending", async () => {
  const cwd = await serverDir(freePort());
  const servers = [spawnServer(cwd), spawnServer(cwd)];
  try {
    // Each one either runs or exits; both running is the bug.
    const deadline = Date.now() + 60_000;
    const decided = () =>
      servers.every((s) =>
        s.exited() !== undefined || /kudurru is running/.test(s.log.text)
      );
    while (!decided()) {
      assert.ok(
        Date.now() < deadline,
        servers.map((s) => s.log.text).join("\n---\n"),
      );
      await new Promise((r) => setTimeout(r, 100));
    }
    // The loser fails at once; give a slow winner time to say it runs.
    const running = servers.filter((s) => s.exited() === undefined);
    assert.equal(
      running.length,
      1,
      `exactly one serves; logs:\n${
        servers.map((s) => s.log.text).join("\n---\n")
      }`,
    );
    const winner = running[0]!;
    const loser = servers.find((s) => s !== winner)!;
    await loser.log.done();
    assert.equal(loser.exited()!.code, 1, loser.log.text);
    assert.match(
      loser.log.text,
      // The pid is named once the winner has written it into the lock.
      /kudurru serve: Another kudurru serves the data directory "data" \(it holds data\/kudurru\.lock(, pid \d+)?\): stop it, or give this one its own node\.dataDir/,
    );
    await winner.log.waitFor(/kudurru is running/);

    // What kudurru created is private: the query log says who asked what.
    const data = join(cwd, "data");
    assert.equal(await mode(data), 0o750, "data directory");
    for (const file of ["state.db", "querylog.db", "kudurru.lock"]) {
      assert.equal(await mode(join(data, file)), 0o640, file);
    }

    // The CLI takes no lock: it works beside the server.
    const zones = await kudurru(cwd, ["get", "zones", "--data-dir", "data"]);
    assert.equal(zones.code, 0, zones.stderr);
    const flushed = await kudurru(cwd, [
      "cache",
      "flush",
      "--data-dir",
      "data",
    ]);
    assert.equal(flushed.code, 0, flushed.stderr);
    assert.match(flushed.stdout, /from the running server/);
    const same = await kudurru(cwd, [
      "config",
      "get",
      "blocking.enabled",
      "--config",
      "kudurru.yaml",
    ]);
    assert.equal(same.code, 0, same.stderr);
    assert.equal(same.stdout, "true\n");
    assert.match(same.stderr, /uses the same value\.\n$/);

    // kudurru.yaml edited, SIGHUP: ignored, and the CLI says so.
    await Deno.writeTextFile(
      join(cwd, "kudurru.yaml"),
      "blocking: { enabled: false }\n",
      { append: true },
    );
    winner.child.kill("SIGHUP");
    await winner.log.waitFor(/SIGHUP ignored/);
    const status = await kudurru(cwd, [
      "blocking",
      "status",
      "--data-dir",
      "data",
      "--config",
      "kudurru.yaml",
    ]);
    assert.equal(status.code, 0, status.stderr);
    assert.equal(
      status.stdout,
      "Blocking is on\n" +
        "kudurru.yaml says blocking.enabled: false (takes effect at the next start)\n",
    );
    const got = await kudurru(cwd, [
      "config",
      "get",
      "blocking.enabled",
      "--config",
      "kudurru.yaml",
    ]);
    assert.equal(got.code, 0, got.stderr);
    assert.equal(got.stdout, "false\n", "config get prints the file");
    assert.match(
      got.stderr,
      /# Shows .*kudurru\.yaml with this shell's KUDURRU_\* variables: what the next start reads\.\n/,
    );
    assert.match(
      got.stderr,
      /# The server running on data \(started [^)]+\) uses other values until it restarts:\n# {3}blocking\.enabled: true \(above: false\)\n$/,
    );

    winner.child.kill("SIGTERM");
    await winner.status;
    await winner.log.done();
    assert.equal(winner.exited()!.code, 0, winner.log.text);
    assert.equal(await mode(join(data, "local.db")), 0o640, "local.db");
    assert.doesNotMatch(winner.log.text, /query log \(who asked for what\)/);

    // Reading needs no write access to the data directory: only
    // state.db itself may be written (the sqlite store opens it so), and
    // the query log not at all.
    const onlyState = flagsWritingOnly(join(data, "state.db"));
    for (
      const args of [
        ["get", "zones"],
        ["export"],
        ["blocking", "status"],
      ]
    ) {
      const read = await kudurru(
        cwd,
        [...args, "--data-dir", "data"],
        onlyState,
      );
      assert.equal(read.code, 0, `${args.join(" ")}: ${read.stderr}`);
    }
    for (const args of [["querylog"], ["stats"]]) {
      const read = await kudurru(
        cwd,
        [...args, "--data-dir", "data"],
        flagsWritingOnly(undefined),
      );
      assert.equal(read.code, 0, `${args.join(" ")}: ${read.stderr}`);
    }
  } finally {
    for (const s of servers) await s.kill();
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("a signal while kudurru stops ends it at once, logged, exit 1; log variables are read in any case", async () => {
  // An upstream that never answers: the query below stays in flight, so the
  // stop waits for it.
  const upstream = Deno.listenDatagram({
    transport: "udp",
    hostname: "127.0.0.1",
    port: 0,
  });
  let asked = 0;
  const silent = (async () => {
    for await (const _ of upstream) asked++;
  })().catch(() => {});
  const cwd = await serverDir((upstream.addr as Deno.NetAddr).port);
  const dns = freePort();
  const server = spawnServer(cwd, {
    KUDURRU_LISTENERS__DNS: `127.0.0.1:${dns}`,
    KUDURRU_LOG_LEVEL: "Info",
    KUDURRU_LOG_FORMAT: "JSON",
  });
  let inFlight: Promise<unknown> | undefined;
  try {
    await server.log.waitFor(/"msg":"kudurru is running"/);
    for (const line of server.log.text.trim().split("\n")) {
      assert.doesNotThrow(() => JSON.parse(line), line);
    }
    inFlight = query(dns, "slow.example.", "A", { timeoutMs: 2_000 })
      .catch(() => {});
    const askedBy = Date.now() + 10_000;
    while (asked === 0) {
      assert.ok(Date.now() < askedBy, server.log.text);
      await new Promise((r) => setTimeout(r, 50));
    }
    server.child.kill("SIGINT");
    await server.log.waitFor(/"msg":"Shutting down"/);
    server.child.kill("SIGINT");
    const stoppedBy = setTimeout(() => server.child.kill("SIGKILL"), 8_000);
    await server.status;
    clearTimeout(stoppedBy);
    await server.log.done();
    const status = server.exited()!;
    assert.equal(status.signal, null, `killed by ${status.signal}`);
    assert.equal(status.code, 1, server.log.text);
    assert.match(
      server.log.text,
      /"level":"error","msg":"Forced exit; cache and query log not saved","signal":"SIGINT"/,
    );
    assert.doesNotMatch(server.log.text, /Cache saved/);
  } finally {
    await server.kill();
    upstream.close();
    await silent;
    await inFlight;
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("kudurru serve refuses a KUDURRU_LOG_LEVEL or KUDURRU_LOG_FORMAT it does not know", async () => {
  const cwd = await serverDir(freePort());
  try {
    for (
      const [env, message] of [
        [
          { KUDURRU_LOG_LEVEL: "verbose" },
          /^kudurru serve: KUDURRU_LOG_LEVEL="verbose" is not a log level: use debug, info, warn, error\n$/,
        ],
        [
          { KUDURRU_LOG_FORMAT: "logfmt" },
          /^kudurru serve: KUDURRU_LOG_FORMAT="logfmt" is not a log format: use text or json\n$/,
        ],
      ] as const
    ) {
      const server = spawnServer(cwd, env);
      const killer = setTimeout(() => server.child.kill("SIGKILL"), 30_000);
      await server.status;
      clearTimeout(killer);
      await server.log.done();
      assert.equal(server.exited()!.code, 1, server.log.text);
      assert.match(server.log.text, message);
    }
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("kudurru serve refuses an empty node.dataDir, saying which setting", async () => {
  const cwd = await serverDir(freePort());
  try {
    const server = spawnServer(cwd, { KUDURRU_NODE__DATADIR: "" });
    const killer = setTimeout(() => server.child.kill("SIGKILL"), 30_000);
    await server.status;
    clearTimeout(killer);
    await server.log.done();
    assert.equal(server.exited()!.code, 1, server.log.text);
    assert.match(
      server.log.text,
      /kudurru serve: node\.dataDir is empty \(kudurru\.yaml or KUDURRU_NODE__DATADIR sets it to ""\): name a directory, or leave it unset for the default\n$/,
    );
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("kudurru serve warns about a query log others may read, and names state.db when the first-boot objects cannot be written", async () => {
  const cwd = await serverDir(freePort());
  try {
    // A data directory made by hand, others may enter, with a query log
    // others may read: modes are left alone, with a warning.
    await Deno.mkdir(join(cwd, "data"), { mode: 0o755 });
    await Deno.chmod(join(cwd, "data"), 0o755);
    const querylog = join(cwd, "data", "querylog.db");
    await Deno.writeTextFile(querylog, "");
    await Deno.chmod(querylog, 0o644);
    // A state.db that refuses every new object, as a full disk does.
    const path = join(cwd, "data", "state.db");
    await (await openSqliteStore(path)).close();
    const db = new DatabaseSync(path);
    db.exec(
      "CREATE TRIGGER full BEFORE INSERT ON objects BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END",
    );
    db.close();
    const server = spawnServer(cwd);
    const killer = setTimeout(() => server.child.kill("SIGKILL"), 30_000);
    await server.status;
    clearTimeout(killer);
    await server.log.done();
    assert.equal(server.exited()!.code, 1, server.log.text);
    assert.match(
      server.log.text,
      /kudurru serve: Cannot write the first-boot objects to data\/state\.db: database or disk is full\n$/,
    );
    assert.match(
      server.log.text,
      /WARN Every user of this machine may read the query log \(who asked for what\); chmod o-rwx the data directory to keep it private path=data\/querylog\.db mode=0644/,
    );
    assert.equal(await mode(querylog), 0o644, "left as the user made it");
    assert.equal(await mode(join(cwd, "data")), 0o755);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});
