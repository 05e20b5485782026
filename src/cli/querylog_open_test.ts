import assert from "node:assert/strict";
import { join } from "node:path";
import { QUERYLOG_DB_FILE } from "../querylog/db.ts";
import { bufferIO } from "./command.ts";
import { querylogCommand } from "./querylog.ts";
import { statsCommand } from "./stats.ts";

Deno.test("kudurru querylog says when the data directory is not there", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const missing = join(dir, "misspelled");
    await assert.rejects(
      () => querylogCommand.run(["--data-dir", missing], bufferIO().io),
      (err: unknown) =>
        err instanceof Error &&
        err.message ===
          `No data directory at "${missing}": is --data-dir (or node.dataDir in the config) right?`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kudurru querylog names a damaged query log and what to do", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, QUERYLOG_DB_FILE);
    await Deno.writeTextFile(path, "not a database at all, ".repeat(200));
    await assert.rejects(
      () => querylogCommand.run(["--data-dir", dir], bufferIO().io),
      (err: unknown) =>
        err instanceof Error &&
        err.message.startsWith(
          `Cannot read "${path}": the file is damaged (file is not a database); kudurru serve moves a damaged query log aside`,
        ),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kudurru querylog and stats say what is wrong with a query log that is a directory or empty", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, QUERYLOG_DB_FILE);
    await Deno.mkdir(path);
    await assert.rejects(
      () => querylogCommand.run(["--data-dir", dir], bufferIO().io),
      (err: unknown) =>
        err instanceof Error &&
        err.message.startsWith(
          `Cannot read the query log: "${path}" is a directory or another non-file, not a query log; move it away`,
        ),
    );
    await Deno.remove(path);
    await Deno.writeFile(path, new Uint8Array(0));
    for (const command of [querylogCommand, statsCommand]) {
      await assert.rejects(
        () => command.run(["--data-dir", dir], bufferIO().io),
        (err: unknown) =>
          err instanceof Error &&
          err.message.startsWith(`Cannot read "${path}": the file is empty`),
        command.name,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
