/**
 * The list fetcher when things go wrong: retries with backoff, the last good
 * body kept and served (stale-on-unreachable), bodies that are not lists,
 * the size cap, the concurrency bound and stop() in the middle of a fetch.
 */
import assert from "node:assert/strict";
import {
  listFilePath,
  listMetaPath,
  sha256Hex,
} from "../blocking/list_files.ts";
import {
  blockList,
  FetcherHarness,
  tempFilesIn,
  waitFor,
} from "./list_fetch_testing.ts";

const GOOD = "# Title: good\nads.example\ntracker.example\n";
const HTML = "<!DOCTYPE html>\n<html><head><title>Oops</title></head></html>\n";
const HOUR = 3600_000;

async function run(fn: (h: FetcherHarness) => Promise<void>): Promise<void> {
  const h = await FetcherHarness.create();
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("retries with backoff, then serves the last good body (stale-on-unreachable)", async () => {
  await run(async (h) => {
    h.server.routes.set("/l", { body: GOOD, etag: '"v1"' });
    const url = h.server.url("/l");
    await h.apply(blockList("l", [{ url }], "1h"));
    await h.start({ failureRetryMs: 60_000 }).initialFetchDone;
    const good = (await h.status("l"))?.sources?.[0];

    h.server.routes.set("/l", { status: 500, body: "down" });
    h.clockMs += 2 * HOUR;
    await waitFor(async () =>
      (await h.status("l"))?.sources?.[0]?.error !== undefined
    );
    // 1 good fetch, then 3 attempts (retryDelaysMs has two waits).
    assert.equal(h.server.seen("/l").length, 4);
    const stale = await h.status("l");
    assert.deepEqual(stale?.sources?.[0], {
      ...good,
      error: "HTTP 500 Internal Server Error",
    });
    const ready = stale?.conditions?.find((c) => c.type === "Ready");
    assert.deepEqual([ready?.status, ready?.reason], ["True", "ServingStale"]);
    assert.equal(await Deno.readTextFile(listFilePath(h.dir, url)), GOOD);

    // Not before failureRetryMs: no request while the clock stands still.
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(h.server.seen("/l").length, 4);

    // The server recovers; after failureRetryMs the error is gone.
    const fixed = GOOD + "more.example\n";
    h.server.routes.set("/l", { body: fixed, etag: '"v2"' });
    h.clockMs += 61_000;
    await waitFor(async () =>
      (await h.status("l"))?.sources?.[0]?.digest === sha256Hex(fixed)
    );
    const recovered = await h.status("l");
    assert.equal(recovered?.sources?.[0]?.error, undefined);
    assert.equal(
      recovered?.conditions?.find((c) => c.type === "Ready")?.reason,
      "Fetched",
    );
  });
});

Deno.test("a retry that succeeds counts as one fetch", async () => {
  await run(async (h) => {
    let calls = 0;
    const url = h.server.url("/flaky");
    h.server.routes.set("/flaky", { status: 503 });
    await h.apply(blockList("l", [{ url }]));
    // Serves 503 twice, then the list.
    const fetcher = h.start({
      fetch: (input, init) => {
        if (++calls === 3) h.server.routes.set("/flaky", { body: GOOD });
        return fetch(input, init);
      },
    });
    assert.deepEqual(await fetcher.initialFetchDone, { ok: 1, failed: [] });
    assert.equal(h.server.seen("/flaky").length, 3);
    assert.equal((await h.status("l"))?.sources?.[0]?.ruleCount, 2);
  });
});

Deno.test("an HTML page is rejected, not retried, and never replaces a list", async () => {
  await run(async (h) => {
    h.server.routes.set("/html", { body: HTML, contentType: "text/html" });
    h.server.routes.set("/flip", { body: GOOD, etag: '"v1"' });
    const html = h.server.url("/html");
    const flip = h.server.url("/flip");
    await h.apply(blockList("html", [{ url: html }]));
    await h.apply(blockList("flip", [{ url: flip }], "1h"));
    const fetcher = h.start();
    const reason = "the body is an HTML page, not a list";
    assert.deepEqual(await fetcher.initialFetchDone, {
      ok: 1,
      failed: [{ url: html, error: reason }],
    });
    assert.equal(h.server.seen("/html").length, 1);
    assert.equal(await exists(listFilePath(h.dir, html)), false);
    assert.equal(await exists(listMetaPath(h.dir, html)), false);
    const status = await h.status("html");
    assert.deepEqual(status?.sources, [{ url: html, error: reason }]);
    const ready = status?.conditions?.find((c) => c.type === "Ready");
    assert.deepEqual([ready?.status, ready?.reason], [
      "False",
      "SourcesFailed",
    ]);

    // A good list that turns into an error page keeps its last good body.
    h.server.routes.set("/flip", { body: HTML, etag: '"v2"' });
    h.clockMs += 2 * HOUR;
    await waitFor(async () =>
      (await h.status("flip"))?.sources?.[0]?.error === reason
    );
    assert.equal(await Deno.readTextFile(listFilePath(h.dir, flip)), GOOD);
    assert.equal(
      (await h.status("flip"))?.sources?.[0]?.digest,
      sha256Hex(GOOD),
    );
    assert.deepEqual(await tempFilesIn(h.dir), []);
  });
});

Deno.test("a list that comes back empty keeps its last good body; a first empty list is taken", async () => {
  await run(async (h) => {
    h.server.routes.set("/l", { body: GOOD, etag: '"v1"' });
    h.server.routes.set("/empty", { body: "# nothing yet\n" });
    const url = h.server.url("/l");
    await h.apply(blockList("l", [{ url }], "1h"));
    await h.apply(blockList("empty", [{ url: h.server.url("/empty") }]));
    await h.start().initialFetchDone;
    assert.equal((await h.status("empty"))?.sources?.[0]?.ruleCount, 0);

    // A rate-limit page with no HTML markers, or an empty reply.
    h.server.routes.set("/l", {
      body: "<div>rate limited</div>\n",
      etag: '"v2"',
    });
    h.clockMs += 2 * HOUR;
    const reason =
      "the new copy holds no rules (the one on disk has 2); keeping the one on disk";
    await waitFor(async () =>
      (await h.status("l"))?.sources?.[0]?.error === reason
    );
    assert.equal(await Deno.readTextFile(listFilePath(h.dir, url)), GOOD);
    assert.equal((await h.status("l"))?.sources?.[0]?.ruleCount, 2);
    assert.deepEqual(await tempFilesIn(h.dir), []);
  });
});

Deno.test("a body over 64 MiB is refused by default", async () => {
  await run(async (h) => {
    const big = new Uint8Array(64 * 1024 * 1024 + 1).fill(0x61);
    h.server.routes.set("/big", { body: big });
    const url = h.server.url("/big");
    await h.apply(blockList("big", [{ url }]));
    const done = await h.start().initialFetchDone;
    assert.deepEqual(done.failed, [{ url, error: "larger than 64 MiB" }]);
    assert.equal(h.server.seen("/big").length, 1, "not retried");
    assert.equal(await exists(listFilePath(h.dir, url)), false);
    assert.deepEqual(await tempFilesIn(h.dir), []);
  });
});

Deno.test("no more than `concurrency` downloads run at once", async () => {
  await run(async (h) => {
    const sources = [];
    for (let i = 0; i < 6; i++) {
      h.server.routes.set(`/c${i}`, { body: `c${i}.example\n`, delayMs: 100 });
      sources.push({ url: h.server.url(`/c${i}`) });
    }
    await h.apply(blockList("many", sources));
    const fetcher = h.start({ concurrency: 2 });
    assert.deepEqual(await fetcher.initialFetchDone, { ok: 6, failed: [] });
    assert.equal(h.server.maxActive, 2);
    const status = await h.status("many");
    assert.deepEqual(status?.sources?.map((s) => s.ruleCount), [
      1,
      1,
      1,
      1,
      1,
      1,
    ]);
  });
});

Deno.test("stop() aborts a fetch in flight and leaves nothing behind", async () => {
  await run(async (h) => {
    h.server.routes.set("/hang", { hang: true });
    h.server.routes.set("/stall", {
      body: "a.example\n".repeat(1000),
      chunkBytes: 100,
      stallAfter: 500,
    });
    const hang = h.server.url("/hang");
    const stall = h.server.url("/stall");
    await h.apply(blockList("l", [{ url: hang }, { url: stall }]));
    const fetcher = h.start();
    await waitFor(() => h.server.seen("/hang").length === 1);
    await waitFor(async () => (await tempFilesIn(h.dir)).length === 1);
    const started = Date.now();
    await fetcher.stop();
    assert.ok(
      Date.now() - started < 1000,
      "stop() did not wait for the server",
    );
    const stopped = "stopped before the list was fetched";
    const done = await fetcher.initialFetchDone;
    assert.equal(done.ok, 0);
    assert.deepEqual(
      done.failed.sort((x, y) => x.url.localeCompare(y.url)),
      [{ url: hang, error: stopped }, { url: stall, error: stopped }],
    );
    assert.deepEqual(await tempFilesIn(h.dir), []);
    assert.equal(await exists(listFilePath(h.dir, stall)), false);
    // Nothing was written after stop().
    assert.equal((await h.status("l"))?.sources, undefined);
  });
});
