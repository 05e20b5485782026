import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { API_VERSION, type KObject } from "../api/v1alpha1/meta.ts";
import { loadConfig } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import { listFilePath } from "../blocking/list_files.ts";
import { memoryLogger } from "../log/logger.ts";
import { newRegistry } from "../metrics/registry.ts";
import { createMemoryStore } from "../store/memory/memory_store.ts";
import type { Store } from "../store/store.ts";
import { finishWithin, waitFor } from "../snapshot/testdata/zone_objects.ts";
import { WorkerControl } from "../snapshot/testdata/worker_control.ts";
import {
  type BlockingWiring,
  listsDirOf,
  listsReadiness,
  startBlocking,
} from "./blocking.ts";

/** A TCP port on loopback that nobody listens on (just closed). */
function closedPort(): number {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  probe.close();
  return (probe.addr as Deno.NetAddr).port;
}

/** A BlockList whose only source is a loopback port nobody listens on. */
function unreachableList(): KObject {
  return {
    apiVersion: API_VERSION,
    kind: "BlockList",
    metadata: { name: "remote", namespace: "home" },
    spec: { sources: [{ url: `http://127.0.0.1:${closedPort()}/list.txt` }] },
  } as KObject;
}

async function setup(initStrategy: string) {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-blocking-" });
  const { config } = loadConfig({
    env: {
      KUDURRU_NODE__DATADIR: dir,
      KUDURRU_BLOCKING__INITSTRATEGY: initStrategy,
    },
    isRoot: false,
    hostname: "test",
    cwd: dir,
  });
  const store = createMemoryStore();
  await store.apply(unreachableList(), { manager: "api" });
  return {
    config,
    store,
    dir,
    async [Symbol.asyncDispose]() {
      await store.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const quick = { retryDelaysMs: [], timeoutMs: 2_000 };

Deno.test("blocking.initStrategy failOnError refuses to start when a list cannot load", async () => {
  await using env = await setup("failOnError");
  await assert.rejects(
    startBlocking({
      store: env.store,
      config: env.config,
      logger: memoryLogger(),
      onChange: () => {},
      fetcher: quick,
    }),
    /block lists failed to load \(blocking.initStrategy is failOnError\): http:\/\/127\.0\.0\.1/,
  );
});

Deno.test("blocking.initStrategy blocking waits, then serves without the failed list", async () => {
  await using env = await setup("blocking");
  const logger = memoryLogger();
  const wiring = await startBlocking({
    store: env.store,
    config: env.config,
    logger,
    onChange: () => {},
    fetcher: quick,
  });
  try {
    assert.ok(
      logger.lines.some((l) => /failed to load; serving without/.test(l)),
    );
    const lists = wiring.assembler.current()?.lists ?? [];
    assert.deepEqual(lists.map((l) => [l.key, l.ruleCount]), [[
      "home/remote",
      0,
    ]]);
    await Deno.stat(join(env.dir, "lists"));
  } finally {
    await wiring.stop();
  }
});

Deno.test("a list that failed to load is named in readiness, and costs it with blocking.allowDegraded false", async () => {
  await using env = await setup("blocking");
  const wiring = await startBlocking({
    store: env.store,
    config: env.config,
    logger: memoryLogger(),
    onChange: () => {},
    fetcher: quick,
  });
  try {
    const strict = listsReadiness(false, wiring.assembler)();
    assert.equal(strict.ready, false);
    assert.match(
      strict.reason ?? "",
      /^block lists failed to load: home\/remote: .* \(blocking.allowDegraded is false\)$/,
    );
    // By default the node stays ready, and says which list is missing.
    const degraded = listsReadiness(true, wiring.assembler)();
    assert.equal(degraded.ready, true);
    assert.match(
      degraded.reason ?? "",
      /^block lists failed to load: home\/remote: .* \(serving without them\)$/,
    );
  } finally {
    await wiring.stop();
  }
});

Deno.test("blocking.allowDegraded false keeps readiness failing while a list has not loaded yet", async () => {
  await using env = await setup("fast");
  // Accepts and never answers: the download is still running below.
  const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of silent) held.push(conn);
  })();
  const list = unreachableList();
  (list.spec as { sources: { url: string }[] }).sources[0]!.url =
    `http://127.0.0.1:${(silent.addr as Deno.NetAddr).port}/list.txt`;
  await env.store.apply(list, { manager: "api" });
  const wiring = await startBlocking({
    store: env.store,
    config: env.config,
    logger: memoryLogger(),
    onChange: () => {},
    fetcher: { retryDelaysMs: [], timeoutMs: 30_000 },
  });
  try {
    const strict = listsReadiness(false, wiring.assembler)();
    assert.deepEqual(strict, {
      ready: false,
      reason:
        "block lists still loading: home/remote (blocking.allowDegraded is false)",
    });
  } finally {
    await wiring.stop();
    silent.close();
    for (const conn of held) conn.close();
    await accepting.catch(() => {});
  }
});

/** 3.3 MB, 122,680 rules: a large list (over SMALL_LIST_BYTES). */
const REAL_LIST = fileURLToPath(
  new URL("../../../shared/data/blocklists/adblock_light.txt", import.meta.url),
);

/**
 * The unreachable list of `setup` with a copy on disk from an earlier run
 * (a real list), as after a restart.
 */
async function withCopyOnDisk(env: { store: Store; config: Config }) {
  const list = (await env.store.list("BlockList")).items[0]!;
  const url = (list.spec as { sources: { url: string }[] }).sources[0]!.url;
  const dir = listsDirOf(env.config);
  await Deno.mkdir(dir, { recursive: true });
  await Deno.symlink(REAL_LIST, listFilePath(dir, url));
}

const compiled = (wiring: BlockingWiring): [string, number][] =>
  (wiring.assembler.current()?.lists ?? []).map((l) => [l.key, l.ruleCount]);

Deno.test("blocking.initStrategy fast serves before a large list on disk is compiled; it joins when ready", async () => {
  using control = new WorkerControl();
  await using env = await setup("fast");
  await withCopyOnDisk(env);
  await env.store.apply(
    {
      apiVersion: API_VERSION,
      kind: "BlockList",
      metadata: { name: "small", namespace: "home" },
      spec: { sources: [{ inline: "ads.example\n" }] },
    } as KObject,
    { manager: "api" },
  );
  control.hold("home/remote"); // its compile runs until released
  const registry = newRegistry();
  const logger = memoryLogger();
  const wiring = await finishWithin(
    "startBlocking",
    startBlocking({
      store: env.store,
      config: env.config,
      logger,
      onChange: () => {},
      fetcher: quick,
      registry,
    }),
  );
  try {
    assert.deepEqual(compiled(wiring), [["home/small", 1]]);
    assert.ok(wiring.assembler.loadingLists().includes("home/remote"));
    assert.match(
      logger.lines.join("\n"),
      /Serving before these block lists are compiled.*home\/remote/,
    );
    assert.match(
      await registry.metrics(),
      /^kudurru_blocklist_compiles_pending 1$/m,
    );
    control.release("home/remote");
    await waitFor(
      "the large list",
      () =>
        compiled(wiring).some(([key, n]) =>
          key === "home/remote" && n > 100_000
        ),
      60_000,
    );
    assert.match(
      await registry.metrics(),
      /^kudurru_blocklist_compiles_pending 0$/m,
    );
  } finally {
    await wiring.stop();
  }
});

Deno.test("blocking.initStrategy blocking waits for the large list on disk before it returns", async () => {
  await using env = await setup("blocking");
  await withCopyOnDisk(env);
  const wiring = await startBlocking({
    store: env.store,
    config: env.config,
    logger: memoryLogger(),
    onChange: () => {},
    fetcher: quick,
  });
  try {
    const lists = compiled(wiring);
    assert.deepEqual(lists.map(([key]) => key), ["home/remote"]);
    assert.ok(lists[0]![1] > 100_000, `${lists[0]![1]} rules`);
  } finally {
    await wiring.stop();
  }
});
