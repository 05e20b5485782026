/** One download attempt against a real local HTTP server. */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  DownloadError,
  downloadList,
  type DownloadRequest,
  formatBytes,
} from "./list_fetch_download.ts";
import { sha256Hex } from "../blocking/list_files.ts";
import { ListServer, tempFilesIn, waitFor } from "./list_fetch_testing.ts";

const BODY = "# Title: test list\nads.example\ntracker.example\n";

async function withServer(
  fn: (server: ListServer, dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-dl-" });
  const server = new ListServer();
  try {
    await fn(server, dir);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function request(
  server: ListServer,
  dir: string,
  path: string,
  extra: Partial<DownloadRequest> = {},
): DownloadRequest {
  return {
    url: server.url(path),
    finalPath: join(dir, "list"),
    fetch,
    maxBytes: 1024,
    timeoutMs: 5000,
    signal: new AbortController().signal,
    ...extra,
  };
}

async function failure(p: Promise<unknown>): Promise<DownloadError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof DownloadError, String(err));
    return err;
  }
  assert.fail("the download succeeded");
}

Deno.test("a 200 lands in a temporary file beside the final path, hashed", async () => {
  await withServer(async (server, dir) => {
    server.routes.set("/l", {
      body: BODY,
      etag: '"v1"',
      lastModified: "Tue, 01 Jul 2025 10:00:00 GMT",
    });
    const r = await downloadList(request(server, dir, "/l"));
    assert.equal(r.kind, "body");
    if (r.kind !== "body") return;
    assert.ok(r.tempPath.startsWith(join(dir, "list.tmp-")), r.tempPath);
    assert.equal(await Deno.readTextFile(r.tempPath), BODY);
    assert.equal(r.digest, sha256Hex(BODY));
    assert.equal(r.size, new TextEncoder().encode(BODY).length);
    assert.equal(r.etag, '"v1"');
    assert.equal(r.lastModified, "Tue, 01 Jul 2025 10:00:00 GMT");
    const seen = server.seen("/l")[0];
    assert.equal(seen?.ifNoneMatch, null);
    assert.match(seen?.userAgent ?? "", /^kudurru\//);
  });
});

Deno.test("a download makes the lists directory again when it was removed", async () => {
  await withServer(async (server, dir) => {
    server.routes.set("/l", { body: BODY });
    const gone = join(dir, "lists");
    const r = await downloadList({
      ...request(server, dir, "/l"),
      finalPath: join(gone, "list"),
    });
    assert.equal(r.kind, "body");
    if (r.kind === "body") {
      assert.equal(await Deno.readTextFile(r.tempPath), BODY);
    }
  });
});

Deno.test("validators are sent and a 304 reports notModified", async () => {
  await withServer(async (server, dir) => {
    const lm = "Tue, 01 Jul 2025 10:00:00 GMT";
    server.routes.set("/etag", { body: BODY, etag: '"v1"' });
    server.routes.set("/lm", { body: BODY, lastModified: lm });
    const byEtag = await downloadList(
      request(server, dir, "/etag", { etag: '"v1"' }),
    );
    const byDate = await downloadList(
      request(server, dir, "/lm", { lastModified: lm }),
    );
    assert.deepEqual([byEtag.kind, byDate.kind], [
      "notModified",
      "notModified",
    ]);
    assert.equal(server.seen("/etag")[0]?.ifNoneMatch, '"v1"');
    assert.equal(server.seen("/lm")[0]?.ifModifiedSince, lm);
    // A changed list answers 200 to the old validator.
    server.routes.set("/etag", { body: BODY + "more.example\n", etag: '"v2"' });
    const changed = await downloadList(
      request(server, dir, "/etag", { etag: '"v1"' }),
    );
    assert.equal(changed.kind, "body");
    assert.deepEqual(
      await tempFilesIn(dir),
      changed.kind === "body" ? [changed.tempPath] : [],
    );
  });
});

Deno.test("bodies over the cap fail, declared or streamed, and leave no file", async () => {
  await withServer(async (server, dir) => {
    const big = "x".repeat(1025);
    server.routes.set("/declared", { body: big });
    server.routes.set("/streamed", { body: big, chunkBytes: 100 });
    server.routes.set("/exact", { body: "y".repeat(1024), chunkBytes: 100 });
    for (const path of ["/declared", "/streamed"]) {
      const err = await failure(downloadList(request(server, dir, path)));
      assert.equal(err.message, "larger than 1 KiB");
      assert.equal(err.retryable, false);
    }
    assert.deepEqual(await tempFilesIn(dir), []);
    const exact = await downloadList(request(server, dir, "/exact"));
    assert.equal(exact.kind === "body" && exact.size, 1024);
  });
});

Deno.test("limits print the way the brief names them", () => {
  assert.equal(formatBytes(64 * 1024 * 1024), "64 MiB");
  assert.equal(formatBytes(2048), "2 KiB");
  assert.equal(formatBytes(1000), "1000 bytes");
});

Deno.test("errors say whether a retry can help", async () => {
  await withServer(async (server, dir) => {
    const cases: [number, boolean][] = [[500, true], [503, true], [429, true], [
      404,
      false,
    ], [403, false]];
    for (const [status, retryable] of cases) {
      server.routes.set(`/s${status}`, { status, body: "no" });
      const err = await failure(
        downloadList(request(server, dir, `/s${status}`)),
      );
      assert.match(err.message, new RegExp(`^HTTP ${status}`));
      assert.equal(err.retryable, retryable, `HTTP ${status}`);
    }
    const refused = await failure(downloadList({
      ...request(server, dir, "/x"),
      url: "http://127.0.0.1:1/list",
    }));
    assert.equal(refused.retryable, true);
  });
});

Deno.test("a response slower than the timeout is aborted", async () => {
  await withServer(async (server, dir) => {
    server.routes.set("/slow", { hang: true });
    const started = Date.now();
    const err = await failure(
      downloadList(request(server, dir, "/slow", { timeoutMs: 150 })),
    );
    assert.equal(err.message, "timed out after 150 ms");
    assert.equal(err.retryable, true);
    assert.ok(Date.now() - started < 3000);
  });
});

Deno.test("stopping mid-body removes the temporary file", async () => {
  await withServer(async (server, dir) => {
    server.routes.set("/stall", {
      body: "a\n".repeat(1000),
      chunkBytes: 100,
      stallAfter: 300,
    });
    const stop = new AbortController();
    const p = downloadList(
      request(server, dir, "/stall", {
        signal: stop.signal,
        maxBytes: 1 << 20,
      }),
    );
    // Stop once part of the body is on disk.
    await waitFor(async () => {
      const [temp] = await tempFilesIn(dir);
      return temp !== undefined && (await Deno.stat(temp)).size >= 300;
    });
    stop.abort();
    const err = await failure(p);
    assert.equal(err.message, "stopped before the list was fetched");
    assert.equal(err.retryable, false);
    assert.deepEqual(await tempFilesIn(dir), []);
  });
});
