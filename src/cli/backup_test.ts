/**
 * `kudurru backup` and `kudurru restore ARCHIVE` with real servers: a
 * backup taken while `kudurru serve` runs and is written to restores into
 * a data directory another server then serves, query history included;
 * and a damaged, foreign or too new archive is refused before anything is
 * written, as is a restore into a directory a server holds.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { zipSync } from "fflate";
import { bufferIO } from "./command.ts";
import { runCli } from "./run.ts";
import { freePort } from "../testing/free_port.ts";
import { query } from "../testing/dns_client.ts";
import {
  LOCAL_READY_ZONE,
  localReadyZoneObject,
  startKudurru,
} from "../testing/kudurru_server.ts";
import { SCHEMA_VERSION } from "../store/store.ts";

async function cli(args: string[], stdin = "") {
  const b = bufferIO(stdin);
  const code = await runCli(args, b.io);
  return { code, stdout: b.stdout(), stderr: b.stderr() };
}

function zone(name: string): string {
  return `apiVersion: kudurru.io/v1alpha1
kind: DNSZone
metadata: { name: ${name} }
spec: { zoneName: ${name}.test., type: primary }
`;
}

/** Polls `check` until it holds: the server writes its query log in batches. */
async function eventually(what: string, check: () => Promise<boolean>) {
  for (let i = 0; i < 150; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function withTempDir(fn: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-backup-test-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Every file under `dir`, by path relative to it. */
async function filesUnder(
  dir: string,
  base = dir,
): Promise<Record<string, Uint8Array>> {
  const out: Record<string, Uint8Array> = {};
  for await (const e of Deno.readDir(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory) Object.assign(out, await filesUnder(path, base));
    else out[path.slice(base.length + 1)] = await Deno.readFile(path);
  }
  return out;
}

Deno.test({
  name:
    "kudurru backup while serve runs and is written to; the archive restores into a fresh data directory that another serve answers from, with its query history",
  async fn() {
    await withTempDir(async (tmp) => {
      const archive = join(tmp, "backup.zip");
      const restored = join(tmp, "restored");
      {
        await using server = await startKudurru({
          objects: [localReadyZoneObject()],
          readyZone: LOCAL_READY_ZONE,
          upstreamPort: freePort(),
        });
        const dataDir = server.dataDir;
        const applied = await cli(
          ["apply", "-f", "-", "--data-dir", dataDir],
          zone("before"),
        );
        assert.equal(applied.code, 0, applied.stderr);
        // A query the restored log must still hold.
        const asked = await query(server.port, "asked-before.local.test.", "A");
        assert.equal(asked.rcode, "NXDOMAIN");
        await eventually("the query in the log", async () => {
          const log = await cli([
            "querylog",
            "--domain",
            "asked-before.local.test",
            "--data-dir",
            dataDir,
          ]);
          return log.stdout.includes("asked-before.local.test");
        });

        // Writes go on while the backup is taken.
        let writing = true;
        const writer = (async () => {
          for (let i = 0; writing; i++) {
            const w = await cli(
              ["apply", "-f", "-", "--data-dir", dataDir],
              zone(`during-${i}`),
            );
            assert.equal(w.code, 0, w.stderr);
          }
        })();
        const backup = await cli([
          "backup",
          "--out",
          archive,
          "--with-querylog",
          "--data-dir",
          dataDir,
        ]);
        writing = false;
        await writer;
        assert.equal(backup.code, 0, backup.stderr);
        assert.match(
          backup.stderr,
          /^wrote .*backup\.zip: state\.db, querylog\.db, keys\/encryption\.key/,
        );
        assert.equal((await Deno.stat(archive)).mode! & 0o777, 0o600);

        // Not into the directory the server holds.
        const refused = await cli(["restore", archive, "--data-dir", dataDir]);
        assert.equal(refused.code, 1);
        assert.match(
          refused.stderr,
          /^kudurru restore: Cannot restore into ".*" while a kudurru serves it \(pid \d+\): stop the server first/,
        );
      }

      const done = await cli(["restore", archive, "--data-dir", restored]);
      assert.equal(done.code, 0, done.stderr);
      assert.equal(
        (await Deno.stat(join(restored, "state.db"))).mode! & 0o777,
        0o600,
      );
      assert.equal(
        (await Deno.stat(join(restored, "keys"))).mode! & 0o777,
        0o700,
      );
      const zones = await cli(["get", "zones", "--data-dir", restored]);
      assert.match(zones.stdout, /^before\s+api\s+1$/m);
      const log = await cli([
        "querylog",
        "--domain",
        "asked-before.local.test",
        "--data-dir",
        restored,
      ]);
      assert.equal(log.code, 0, log.stderr);
      assert.match(log.stdout, /asked-before\.local\.test/);

      // A server started on the restored files answers for the restored zone.
      const { "kudurru.lock": _lock, ...files } = await filesUnder(restored);
      await using again = await startKudurru({
        objects: [localReadyZoneObject()],
        readyZone: LOCAL_READY_ZONE,
        upstreamPort: freePort(),
        dataFiles: files,
      });
      await eventually("the restored zone", async () => {
        const soa = await query(again.port, "before.test.", "SOA");
        return soa.rcode === "NOERROR" && soa.flag_aa &&
          soa.answers.length === 1;
      });
    });
  },
});

/** A data directory with one zone and a key, and its backup. */
async function backedUp(
  tmp: string,
): Promise<{ archive: string; dataDir: string }> {
  const dataDir = join(tmp, "data");
  const applied = await cli(
    ["apply", "-f", "-", "--data-dir", dataDir],
    zone("kept"),
  );
  assert.equal(applied.code, 0, applied.stderr);
  await Deno.mkdir(join(dataDir, "keys"), { mode: 0o700 });
  await Deno.writeTextFile(
    join(dataDir, "keys", "encryption.key"),
    "k".repeat(64),
  );
  const archive = join(tmp, "backup.zip");
  const made = await cli(["backup", "-o", archive, "--data-dir", dataDir]);
  assert.equal(made.code, 0, made.stderr);
  return { archive, dataDir };
}

Deno.test("kudurru restore refuses a damaged backup, naming it, and writes nothing", async () => {
  await withTempDir(async (tmp) => {
    const { archive } = await backedUp(tmp);
    const bytes = await Deno.readFile(archive);
    bytes[Math.floor(bytes.length * 0.6)]! ^= 0xff;
    await Deno.writeFile(archive, bytes);
    const target = join(tmp, "target");
    const got = await cli(["restore", archive, "--data-dir", target]);
    assert.equal(got.code, 1);
    assert.match(
      got.stderr,
      new RegExp(
        `^kudurru restore: Cannot restore "${archive}": (state\\.db in it is damaged|the archive is damaged)`,
      ),
    );
    assert.equal(
      await Deno.stat(join(target, "state.db")).catch(() => null),
      null,
    );
  });
});

Deno.test("kudurru restore refuses a backup of a newer store schema, and files that are not kudurru backups", async () => {
  await withTempDir(async (tmp) => {
    const { archive, dataDir } = await backedUp(tmp);
    const db = new DatabaseSync(join(dataDir, "state.db"));
    db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(
      String(SCHEMA_VERSION + 1),
    );
    db.close();
    const newer = join(tmp, "newer.zip");
    assert.equal(
      (await cli(["backup", "-o", newer, "--data-dir", dataDir])).code,
      0,
    );
    const target = join(tmp, "target");
    const got = await cli(["restore", newer, "--data-dir", target]);
    assert.equal(got.code, 1);
    assert.match(
      got.stderr,
      new RegExp(
        `Cannot restore ".*newer\\.zip": its state\\.db has schema version ${
          SCHEMA_VERSION + 1
        }, newer than this kudurru's ${SCHEMA_VERSION}`,
      ),
    );

    const foreign = join(tmp, "photos.zip");
    await Deno.writeFile(
      foreign,
      zipSync({ "cat.jpg": new Uint8Array([1, 2, 3]) }),
    );
    const notOurs = await cli(["restore", foreign, "--data-dir", target]);
    assert.equal(notOurs.code, 1);
    assert.match(
      notOurs.stderr,
      /Cannot restore ".*photos\.zip": it is a zip archive without manifest\.json: not a kudurru backup/,
    );

    const junk = join(tmp, "junk.bin");
    await Deno.writeFile(junk, new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 1]));
    const binary = await cli(["restore", junk, "--data-dir", target]);
    assert.equal(binary.code, 1);
    assert.match(
      binary.stderr,
      /it is neither a kudurru backup archive nor an export/,
    );
    assert.equal(
      await Deno.stat(join(target, "state.db")).catch(() => null),
      null,
    );

    // The good archive restores over an existing directory, keeping the old files.
    const first = await cli(["restore", archive, "--data-dir", target]);
    assert.equal(first.code, 0, first.stderr);
    const second = await cli(["restore", archive, "--data-dir", target]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, /^kept .*state\.db\.bak-\d{8}T\d{6}Z$/m);
    assert.match(
      second.stderr,
      /^kept .*keys\/encryption\.key\.bak-\d{8}T\d{6}Z$/m,
    );
    assert.equal(
      await Deno.readTextFile(join(target, "keys", "encryption.key")),
      "k".repeat(64),
    );
  });
});
