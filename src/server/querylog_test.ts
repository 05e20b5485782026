import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../config/load.ts";
import { memoryLogger } from "../log/logger.ts";
import { openQueryLog, queryLogHealthCheck } from "./querylog.ts";
import { QueryLogNotOpenError } from "../querylog/writer_connection.ts";

async function dataDir() {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-serve-querylog-" });
  const { config } = loadConfig({
    env: { KUDURRU_NODE__DATADIR: dir },
    isRoot: false,
    hostname: "test",
    cwd: dir,
  });
  return {
    config,
    path: join(dir, "querylog.db"),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

Deno.test("openQueryLog gives a writer even when querylog.db does not open, and it opens it later", async () => {
  await using dir = await dataDir();
  await Deno.mkdir(dir.path); // a disk that cannot take the file, for now
  const logger = memoryLogger();
  const writer = openQueryLog(dir.config, logger);
  try {
    assert.ok(writer, "a writer, not none");
    const check = queryLogHealthCheck(writer);
    const note = check();
    assert.equal(note.ready, true, "DNS answers: still ready");
    assert.match(note.reason ?? "", /^the query log is not being written: /);
    assert.throws(() => writer.db, QueryLogNotOpenError);
    assert.equal(writer.stats().failing, true);
    assert.match(logger.lines.join("\n"), /Cannot open the query log/);

    await Deno.remove(dir.path);
    // The first pause before trying again is a second.
    await new Promise((r) => setTimeout(r, 1100));
    await writer.flush();
    assert.equal(writer.db.isOpen, true);
    assert.deepEqual(check(), { ready: true });
  } finally {
    await writer.close();
  }
});
