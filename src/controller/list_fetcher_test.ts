/**
 * The list fetcher end to end: a real HTTP server, the memory store, real
 * files in a temp dir. Fetching, status contents, conditional refreshes,
 * resuming from the sidecar, shared URLs and settling of status writes.
 */
import assert from "node:assert/strict";
import type { Store } from "../store/store.ts";
import { countRules } from "../blocking/list_counts.ts";
import { CONFIG_MAP_UNSUPPORTED } from "./list_fetch_status.ts";
import { listFilePath, sha256Hex } from "../blocking/list_files.ts";
import {
  blockList,
  FetcherHarness,
  tempFilesIn,
  waitFor,
} from "./list_fetch_testing.ts";

const BODY = [
  "# Title: test list",
  "ads.example",
  "tracker.example",
  "||x.example^$third-party",
  "bad..name",
  "",
].join("\n");
const LAST_MODIFIED = "Tue, 01 Jul 2025 09:00:00 GMT";
const HOUR = 3600_000;

async function run(fn: (h: FetcherHarness) => Promise<void>): Promise<void> {
  const h = await FetcherHarness.create();
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

Deno.test("every source gets a status entry; bodies land atomically", async () => {
  await run(async (h) => {
    h.server.routes.set("/a", {
      body: BODY,
      etag: '"v1"',
      lastModified: LAST_MODIFIED,
    });
    const a = h.server.url("/a");
    const off = h.server.url("/off");
    await h.apply(blockList("mixed", [
      { url: a, name: "A list" },
      { inline: "one.example\ntwo.example\n", name: "mine" },
      { url: off, enabled: false },
      { configMapRef: { name: "cm", key: "list" } },
    ]));
    await h.apply(blockList("plain", [{ url: a }]));
    const fetcher = h.start();
    assert.deepEqual(await fetcher.initialFetchDone, { ok: 1, failed: [] });
    assert.equal(await Deno.readTextFile(listFilePath(h.dir, a)), BODY);
    assert.deepEqual(await tempFilesIn(h.dir), []);
    assert.equal(h.server.seen("/a").length, 1, "shared URL fetched once");
    assert.equal(
      h.server.seen("/off").length,
      0,
      "disabled source not fetched",
    );
    const fetched = {
      url: a,
      etag: '"v1"',
      lastModified: LAST_MODIFIED,
      digest: sha256Hex(BODY),
      ruleCount: 2,
      invalid: 1,
      unsupported: 1,
      title: "test list",
      examples: [
        "line 4: ||x.example^$third-party: the $third-party modifier is not supported",
        "line 5: bad..name: not a valid domain name or IP address",
      ],
      lastFetched: h.now().toISOString(),
    };
    // initialFetchDone resolves after the statuses are written.
    const mixed = await h.status("mixed");
    assert.deepEqual(mixed?.sources, [
      { ...fetched, name: "A list" },
      { name: "mine", ruleCount: 2, invalid: 0, unsupported: 0 },
      { url: off },
      { error: CONFIG_MAP_UNSUPPORTED },
    ]);
    assert.equal(mixed?.observedGeneration, 1);
    const ready = mixed?.conditions?.find((c) => c.type === "Ready");
    assert.equal(ready?.status, "False");
    assert.equal(ready?.reason, "SourcesFailed");
    assert.match(ready?.message ?? "", /configMapRef sources need/);
    const plain = await h.status("plain");
    assert.deepEqual(plain?.sources, [fetched]);
    assert.deepEqual(
      plain?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
      [["Ready", "True", "Fetched", "2 rules from 1 source"]],
    );
  });
});

Deno.test("a refresh is a conditional GET; 304 keeps the body and moves lastFetched", async () => {
  await run(async (h) => {
    h.server.routes.set("/a", { body: BODY, etag: '"v1"' });
    const a = h.server.url("/a");
    await h.apply(blockList("l", [{ url: a }], "1h"));
    const fetcher = h.start();
    await fetcher.initialFetchDone;
    const first = await h.status("l");
    h.clockMs += 2 * HOUR;
    await waitFor(async () =>
      (await h.status("l"))?.sources?.[0]?.lastFetched === h.now().toISOString()
    );
    const requests = h.server.seen("/a");
    assert.equal(requests.length, 2);
    assert.equal(requests[0]?.ifNoneMatch, null);
    assert.equal(requests[1]?.ifNoneMatch, '"v1"');
    assert.equal(await Deno.readTextFile(listFilePath(h.dir, a)), BODY);
    const second = await h.status("l");
    assert.equal(second?.sources?.[0]?.digest, first?.sources?.[0]?.digest);

    // The list changes upstream: the next refresh downloads the new body.
    const updated = BODY + "new.example\n";
    h.server.routes.set("/a", { body: updated, etag: '"v2"' });
    h.clockMs += 2 * HOUR;
    await waitFor(async () =>
      (await h.status("l"))?.sources?.[0]?.etag === '"v2"'
    );
    assert.equal(await Deno.readTextFile(listFilePath(h.dir, a)), updated);
    const third = (await h.status("l"))?.sources?.[0];
    assert.equal(third?.digest, sha256Hex(updated));
    assert.equal(third?.ruleCount, 3);
    assert.deepEqual(await tempFilesIn(h.dir), []);
  });
});

Deno.test("a BlockList without refreshInterval refreshes at blocking.refreshInterval", async () => {
  await run(async (h) => {
    h.server.routes.set("/a", { body: BODY, etag: '"v1"' });
    const list = blockList("l", [{ url: h.server.url("/a") }]);
    delete (list.spec as { refreshInterval?: string }).refreshInterval;
    await h.apply(list);
    const fetcher = h.start({ defaultRefreshMs: 30 * 60_000 });
    await fetcher.initialFetchDone;
    h.clockMs += 20 * 60_000; // not due yet (at most 5 % early)
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(h.server.seen("/a").length, 1);
    h.clockMs += 20 * 60_000; // 40 minutes: due
    await waitFor(() => h.server.seen("/a").length === 2);
  });
});

Deno.test("Last-Modified alone drives If-Modified-Since", async () => {
  await run(async (h) => {
    h.server.routes.set("/lm", { body: BODY, lastModified: LAST_MODIFIED });
    await h.apply(blockList("l", [{ url: h.server.url("/lm") }], "1h"));
    await h.start().initialFetchDone;
    h.clockMs += 2 * HOUR;
    await waitFor(() => h.server.seen("/lm").length === 2);
    assert.equal(h.server.seen("/lm")[1]?.ifModifiedSince, LAST_MODIFIED);
  });
});

Deno.test("a new leader resumes from the sidecar; one without the body downloads it", async () => {
  await run(async (h) => {
    h.server.routes.set("/a", { body: BODY, etag: '"v1"' });
    const a = h.server.url("/a");
    await h.apply(blockList("l", [{ url: a }], "1h"));
    const first = h.start();
    await first.initialFetchDone;
    await first.stop();
    const before = await h.list("l");

    // Same disk, not due yet: nothing is requested and nothing is written.
    h.clockMs += 10 * 60_000;
    const second = h.start();
    assert.deepEqual(await second.initialFetchDone, { ok: 1, failed: [] });
    assert.equal(h.server.seen("/a").length, 1);
    await second.stop();
    assert.equal(
      (await h.list("l")).metadata.resourceVersion,
      before.metadata.resourceVersion,
    );

    // Another node's empty disk: the status has an etag, but no body here,
    // so the GET must be unconditional.
    const otherDir = await Deno.makeTempDir({ prefix: "kudurru-lists-" });
    try {
      const third = h.start({ listsDir: otherDir });
      assert.deepEqual(await third.initialFetchDone, { ok: 1, failed: [] });
      assert.equal(h.server.seen("/a")[1]?.ifNoneMatch, null);
      assert.equal(await Deno.readTextFile(listFilePath(otherDir, a)), BODY);
      await third.stop();
    } finally {
      await Deno.remove(otherDir, { recursive: true });
    }
  });
});

Deno.test("status writes settle: no write without a change", async () => {
  await run(async (h) => {
    h.server.routes.set("/a", { body: BODY, etag: '"v1"' });
    await h.apply(blockList("l", [
      { url: h.server.url("/a") },
      { inline: "x.example\n" },
    ]));
    await h.start().initialFetchDone;
    const settled = (await h.list("l")).metadata.resourceVersion;
    // maxSleepMs is 20 ms, so this spans a dozen passes.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await h.list("l")).metadata.resourceVersion, settled);
    assert.equal(h.server.seen("/a").length, 1);
  });
});

Deno.test("a changed format recounts the body on disk without a request", async () => {
  await run(async (h) => {
    h.server.routes.set("/a", { body: BODY, etag: '"v1"' });
    const a = h.server.url("/a");
    await h.apply(blockList("l", [{ url: a }]));
    await h.start().initialFetchDone;
    assert.equal((await h.status("l"))?.sources?.[0]?.ruleCount, 2);
    // Read as regex, every line is an expression: other counts.
    const asRegex = countRules(BODY, "regex");
    assert.notEqual(asRegex.ruleCount, 2);
    await h.apply(blockList("l", [{ url: a, format: "regex" }]));
    await waitFor(async () =>
      (await h.status("l"))?.sources?.[0]?.ruleCount === asRegex.ruleCount
    );
    assert.equal(h.server.seen("/a").length, 1);
  });
});

Deno.test("a BlockList added later is fetched and reported", async () => {
  await run(async (h) => {
    h.server.routes.set("/late", { body: "late.example\n" });
    const fetcher = h.start();
    assert.deepEqual(await fetcher.initialFetchDone, { ok: 0, failed: [] });
    await h.apply(blockList("late", [{ url: h.server.url("/late") }]));
    await waitFor(async () =>
      (await h.status("late"))?.sources?.[0]?.ruleCount === 1
    );
  });
});

Deno.test("initialFetchDone waits for the status of a fetch that ends during a write", async () => {
  await run(async (h) => {
    h.server.routes.set("/fast", { body: "fast.example\n" });
    h.server.routes.set("/slow", { body: "slow.example\n", delayMs: 40 });
    // "a-slow" comes first in a pass (objects are listed by name), so it is
    // still pending when the pass looks at it, and "/slow" answers while the
    // write of "b-fast" runs.
    await h.apply(blockList("a-slow", [{ url: h.server.url("/slow") }]));
    await h.apply(blockList("b-fast", [{ url: h.server.url("/fast") }]));
    const store: Store = {
      ...h.store,
      updateStatus: async (obj) => {
        await new Promise((r) => setTimeout(r, 150));
        return await h.store.updateStatus(obj);
      },
    };
    const fetcher = h.start({ store });
    assert.deepEqual(await fetcher.initialFetchDone, { ok: 2, failed: [] });
    assert.equal((await h.status("a-slow"))?.sources?.[0]?.ruleCount, 1);
    assert.equal((await h.status("b-fast"))?.sources?.[0]?.ruleCount, 1);
  });
});

Deno.test("temporary files a crash left behind are removed at start", async () => {
  await run(async (h) => {
    const leftover = `${listFilePath(h.dir, "https://x.example/")}.tmp-00ff`;
    await Deno.writeTextFile(leftover, "half a list");
    await h.start().initialFetchDone;
    assert.deepEqual(await tempFilesIn(h.dir), []);
  });
});

Deno.test("a real list: every name of HaGeZi light is counted", async () => {
  await run(async (h) => {
    const body = await Deno.readFile(
      "../shared/data/blocklists/adblock_light.txt",
    );
    h.server.routes.set("/light", { body, etag: '"light"' });
    const url = h.server.url("/light");
    await h.apply(blockList("light", [{ url }]));
    assert.deepEqual(await h.start().initialFetchDone, { ok: 1, failed: [] });
    const source = (await h.status("light"))?.sources?.[0];
    // The data README states the list holds 122,680 names.
    assert.equal(source?.ruleCount, 122_680);
    assert.equal(source?.invalid, 0);
    assert.equal(source?.digest, sha256Hex(body));
    assert.deepEqual(await Deno.readFile(listFilePath(h.dir, url)), body);
  });
});
