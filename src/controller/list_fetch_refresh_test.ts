/**
 * The list fetcher's refresh (`POST …/blocklists/{name}:refresh`): a fetch
 * now, whatever refreshInterval says, answered with what it came to.
 */
import assert from "node:assert/strict";
import type { Elector, Store } from "../store/store.ts";
import { blockList, FetcherHarness, waitFor } from "./list_fetch_testing.ts";

const KEY = { kind: "BlockList", namespace: "default", name: "l" };

async function run(fn: (h: FetcherHarness) => Promise<void>): Promise<void> {
  const h = await FetcherHarness.create();
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

Deno.test("refresh fetches a list now, before its interval, and says what came of it", async () => {
  await run(async (h) => {
    h.server.routes.set("/a", { body: "ads.example\n", etag: '"v1"' });
    const a = h.server.url("/a");
    await h.apply(blockList("l", [{ url: a }], "24h"));
    const fetcher = h.start();
    await fetcher.initialFetchDone;
    h.server.routes.set("/a", {
      body: "ads.example\nmore.example\n",
      etag: '"v2"',
    });
    h.clockMs += 60_000;
    const changed = await fetcher.refresh(KEY);
    assert.deepEqual(changed, {
      state: "fetched",
      sources: [{
        url: a,
        ok: true,
        changed: true,
        fetchedAt: h.now().toISOString(),
      }],
    });
    const seen = h.server.seen("/a");
    assert.equal(seen.length, 2);
    assert.equal(seen[1]?.ifNoneMatch, '"v1"', "a conditional GET");
    await waitFor(async () =>
      (await h.status("l"))?.sources?.[0]?.etag === '"v2"'
    );
    const same = await fetcher.refresh(KEY);
    assert.equal(same.state === "fetched" && same.sources[0]?.changed, false);
    assert.equal(
      h.server.seen("/a").length,
      3,
      "a 304, asked for all the same",
    );
  });
});

Deno.test("refresh of a failing source says why; the copy held stays", async () => {
  await run(async (h) => {
    h.server.routes.set("/a", { body: "ads.example\n" });
    const a = h.server.url("/a");
    await h.apply(blockList("l", [{ url: a }], "24h"));
    const fetcher = h.start();
    await fetcher.initialFetchDone;
    h.server.routes.set("/a", { status: 503 });
    const failed = await fetcher.refresh(KEY);
    assert.equal(failed.state, "fetched");
    const [source] = failed.state === "fetched" ? failed.sources : [];
    assert.equal(source?.ok, false);
    assert.match(source?.error ?? "", /503/);
    assert.equal((await h.status("l"))?.sources?.[0]?.ruleCount, 1);
  });
});

Deno.test("refresh of a list the fetcher does not hold, or with nothing to fetch", async () => {
  await run(async (h) => {
    await h.apply(blockList("l", [
      { inline: "one.example\n" },
      { url: h.server.url("/off"), enabled: false },
    ]));
    const fetcher = h.start();
    await fetcher.initialFetchDone;
    assert.deepEqual(await fetcher.refresh({ ...KEY, name: "nope" }), {
      state: "unknown",
    });
    assert.deepEqual(await fetcher.refresh(KEY), {
      state: "fetched",
      sources: [],
    });
    assert.equal(h.server.seen("/off").length, 0);
  });
});

Deno.test("refresh on a node that does not lead names the leader", async () => {
  await run(async (h) => {
    const follower: Elector = {
      // Follows until stopped (the signal may be aborted already).
      run: (signal) =>
        new Promise((resolve) => {
          if (signal.aborted) resolve();
          else signal.addEventListener("abort", () => resolve());
        }),
      isLeader: () => false,
      leader: () => "node-b",
    };
    const store: Store = { ...h.store, elector: () => follower };
    const fetcher = h.start({ store });
    assert.deepEqual(await fetcher.refresh(KEY), {
      state: "notLeader",
      leader: "node-b",
    });
  });
});

Deno.test("stopping the fetcher settles the refreshes still waiting", async () => {
  await run(async (h) => {
    h.server.routes.set("/a", { body: "ads.example\n" });
    const a = h.server.url("/a");
    await h.apply(blockList("l", [{ url: a }], "24h"));
    const fetcher = h.start();
    await fetcher.initialFetchDone;
    h.server.routes.set("/a", { hang: true });
    const waiting = fetcher.refresh(KEY);
    await waitFor(() => h.server.seen("/a").length === 2);
    await fetcher.stop();
    const stopped = await waiting;
    assert.equal(stopped.state, "fetched");
    assert.deepEqual(stopped.state === "fetched" && stopped.sources, [{
      url: a,
      ok: false,
      error: "the list fetcher stopped",
    }]);
  });
});
