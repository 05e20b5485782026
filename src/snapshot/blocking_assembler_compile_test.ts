/**
 * The BlockingAssembler while lists compile: real compile workers, steered
 * by WorkerControl (a job held back is "a compile still running"; a broken
 * job crashes its worker), a memory store and real list files. Every wait
 * is on an event or a state, never on a duration.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { API_VERSION, type KObject } from "../api/v1alpha1/meta.ts";
import { openCompiledList } from "../blocking/matcher/open.ts";
import { blockingSchema } from "../config/schema_resolver.ts";
import { listFilePath } from "../blocking/list_files.ts";
import { memoryLogger } from "../log/logger.ts";
import { createBlockListMetrics } from "../metrics/query_metrics.ts";
import { newRegistry } from "../metrics/registry.ts";
import { createMemoryStore } from "../store/memory/memory_store.ts";
import {
  BlockingAssembler,
  type BlockingAssemblerOptions,
} from "./blocking_assembler.ts";
import { finishWithin, waitFor } from "./testdata/zone_objects.ts";
import { WorkerControl } from "./testdata/worker_control.ts";

const API = { manager: "api" };
/** 3.3 MB, 122,680 rules: over SMALL_LIST_BYTES. */
const REAL_LIST = fileURLToPath(
  new URL(
    "../../../shared/data/blocklists/adblock_light.txt",
    import.meta.url,
  ),
);
/** A loopback port nobody listens on: only the copy on disk counts. */
const BIG_URL = "http://127.0.0.1:9/adblock_light.txt";

function object(kind: string, name: string, spec: unknown): KObject {
  return {
    apiVersion: API_VERSION,
    kind,
    metadata: { name, namespace: "home" },
    spec,
  } as KObject;
}

const READY = {
  type: "Ready",
  status: "True",
  reason: "Fetched",
  lastTransitionTime: "2030-01-01T00:00:00Z",
};

const inlineList = (name: string, text: string) =>
  object("BlockList", name, { sources: [{ inline: text }] });

async function setup(
  opts: Partial<BlockingAssemblerOptions> = {},
) {
  const store = createMemoryStore();
  const listsDir = await Deno.makeTempDir({ prefix: "kudurru-assembler-" });
  const logger = memoryLogger();
  let assembler: BlockingAssembler | undefined;
  return {
    store,
    listsDir,
    logger,
    start() {
      assembler = new BlockingAssembler({
        store,
        listsDir,
        settings: blockingSchema.parse({}),
        logger,
        onChange: () => {},
        debounceMs: 5,
        compileRetryMs: { first: 5, max: 5 },
        ...opts,
      });
      assembler.start();
      return assembler;
    },
    /** Log lines as objects, optionally only those with this message. */
    logged(msg?: RegExp) {
      return logger.lines.map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => msg === undefined || msg.test(String(l.msg)));
    },
    async [Symbol.asyncDispose]() {
      await assembler?.stop();
      await store.close();
      await Deno.remove(listsDir, { recursive: true });
    },
  };
}

/** True when the list `key` of the current build blocks `name`. */
function blocks(a: BlockingAssembler, key: string, name: string): boolean {
  const data = a.current()?.lists.find((l) => l.key === key);
  return data !== undefined &&
    openCompiledList(data).check(`${name}.`)?.outcome === "matched";
}

Deno.test("a list whose compile crashes shows as failed, is compiled again in a fresh worker, and counted", async () => {
  using control = new WorkerControl();
  const registry = newRegistry();
  const metrics = createBlockListMetrics(registry);
  await using env = await setup({ metrics });
  await env.store.apply(inlineList("base", "base.example\n"), API);
  const a = env.start();
  metrics.readPendingFrom(() => a.pendingCompiles());
  await finishWithin("the first build", a.synced);
  const key = "home/newlist";
  // The first job crashes its worker; the retry is held, so the failed
  // state can be looked at before it is compiled.
  control.hold(key);
  control.breakNext(key, 1);
  await env.store.apply(inlineList("newlist", "evil.example\n"), API);
  await finishWithin("the first job", control.posted(key, 1));
  control.release(key);
  control.hold(key);
  await finishWithin("the retry", control.posted(key, 2));
  assert.match(
    a.failedLists().join("\n"),
    /^home\/newlist: compiling failed/,
  );
  assert.ok(!blocks(a, key, "evil.example"), "not compiled yet");
  const text = await registry.metrics();
  assert.match(text, /^kudurru_blocklist_compile_failures_total 1$/m);
  assert.match(text, /^kudurru_blocklist_compiles_pending 1$/m);
  assert.equal(env.logged(/block-list compiler failed/).length, 1);

  control.release(key);
  await waitFor("the retry's rules", () => blocks(a, key, "evil.example"));
  assert.deepEqual(a.failedLists(), []);
  assert.ok(control.created >= 2, "the retry ran in a fresh worker");

  // A changed spec whose compile crashes keeps the old rules meanwhile.
  control.breakNext(key, 1);
  control.hold(key);
  await env.store.apply(inlineList("newlist", "worse.example\n"), API);
  await finishWithin("the changed list's job", control.posted(key, 3));
  control.release(key);
  control.hold(key);
  await finishWithin("its retry", control.posted(key, 4));
  assert.ok(blocks(a, key, "evil.example"), "the old rules stay");
  assert.equal(a.failedLists().length, 1);
  control.release(key);
  await waitFor("the new rules", () => blocks(a, key, "worse.example"));
  assert.ok(!blocks(a, key, "evil.example"));
  assert.match(
    await registry.metrics(),
    /^kudurru_blocklist_compile_failures_total 2$/m,
  );
});

Deno.test("a slow compile holds up neither other lists nor deletions, and a superseded one is abandoned", async () => {
  using control = new WorkerControl();
  await using env = await setup();
  await env.store.apply(inlineList("big", "big1.example\n"), API);
  await env.store.apply(inlineList("small", "a.small.example\n"), API);
  await env.store.apply(inlineList("gone", "gone.example\n"), API);
  const a = env.start();
  await finishWithin("the first build", a.synced);
  const big = "home/big";
  assert.ok(blocks(a, big, "big1.example"));

  // big is recompiling (held): nothing else waits for it.
  control.hold(big);
  await env.store.apply(inlineList("big", "big2.example\n"), API);
  await finishWithin("big's recompile", control.posted(big, 2));
  await env.store.apply(inlineList("small", "b.small.example\n"), API);
  await waitFor(
    "the small edit",
    () => blocks(a, "home/small", "b.small.example"),
  );
  assert.ok(blocks(a, big, "big1.example"), "big keeps its rules meanwhile");
  await env.store.delete({
    kind: "BlockList",
    namespace: "home",
    name: "gone",
  });
  await waitFor(
    "the deletion",
    () => !a.current()!.lists.some((l) => l.key === "home/gone"),
  );
  assert.equal(control.heldCount(big), 1, "big is still compiling");

  // Changed again: the running compile is abandoned (its worker ended).
  const terminated = control.terminated;
  await env.store.apply(inlineList("big", "big3.example\n"), API);
  await finishWithin("big's newest compile", control.posted(big, 3));
  assert.ok(control.terminated > terminated, "the superseded worker ended");
  control.release(big);
  await waitFor("big's newest rules", () => blocks(a, big, "big3.example"));
  assert.ok(!blocks(a, big, "big2.example"));
  const compiledBig = () =>
    env.logged(/^Compiled a block list$/).filter((l) => l.list === big).length;
  assert.equal(compiledBig(), 2, "the first compile and the newest only");
  assert.equal(env.logged(/^Abandoned a block-list compile/).length, 1);

  // Deleted while it compiles: gone at once, never reported compiled.
  control.hold(big);
  await env.store.apply(inlineList("big", "big4.example\n"), API);
  await finishWithin("big's last compile", control.posted(big, 4));
  await env.store.delete({ kind: "BlockList", namespace: "home", name: "big" });
  await waitFor(
    "big's deletion",
    () => !a.current()!.lists.some((l) => l.key === big),
  );
  control.release(big); // to a terminated worker: nothing happens
  await env.store.apply(inlineList("small", "c.small.example\n"), API);
  await waitFor(
    "a later edit",
    () => blocks(a, "home/small", "c.small.example"),
  );
  assert.equal(compiledBig(), 2);
  assert.equal(a.pendingCompiles(), 0);
});

Deno.test("firstSnapshotWaits small: the first build goes without a large list still compiling", async () => {
  using control = new WorkerControl();
  await using env = await setup({ firstSnapshotWaits: "small" });
  await Deno.symlink(REAL_LIST, listFilePath(env.listsDir, BIG_URL));
  // Fetched, as the list fetcher says: only the compile is outstanding.
  for (
    const list of [
      object("BlockList", "big", { sources: [{ url: BIG_URL }] }),
      inlineList("small", "ads.example\n"),
    ]
  ) {
    await env.store.updateStatus({
      ...await env.store.apply(list, API),
      status: { conditions: [READY] },
    });
  }
  await env.store.apply(
    object("ClientGroup", "all", { clients: [{ cidr: "0.0.0.0/0" }] }),
    API,
  );
  await env.store.apply(
    object("Policy", "all", {
      clientGroupRefs: ["all"],
      blockListRefs: ["big", "small"],
    }),
    API,
  );
  control.hold("home/big");
  const a = env.start();
  await finishWithin("the first build", a.synced);
  assert.deepEqual(a.current()!.lists.map((l) => l.key), ["home/small"]);
  assert.deepEqual(control.jobs, ["home/big"], "the small list compiled here");
  assert.deepEqual(
    a.current()!.policies[0]?.blockLists,
    ["home/big", "home/small"],
    "the policy keeps the list that is loading",
  );
  assert.deepEqual(env.logged(/does not exist/), []);
  assert.deepEqual(a.loadingLists(), ["home/big"]);
  assert.deepEqual(
    env.logged(/^Serving before these block lists are compiled/).map((l) =>
      l.lists
    ),
    ["home/big"],
  );
  control.release("home/big");
  await waitFor(
    "the large list",
    () => blocks(a, "home/big", "10003316.fls.doubleclick.net"),
    60_000,
  );
  assert.deepEqual(a.loadingLists(), []);
});

for (
  const [how, bigSpec, refs] of [
    ["of mode allow", { mode: "allow" }, { blockListRefs: ["big", "small"] }],
    ["named in allowListRefs", {}, {
      blockListRefs: ["small"],
      allowListRefs: ["big"],
    }],
  ] as const
) {
  Deno.test(`firstSnapshotWaits small: the first build waits for a large list ${how}`, async () => {
    // Late, an allow list would let the small list block what it allows,
    // and clients keep those answers for blockTTL.
    using control = new WorkerControl();
    await using env = await setup({ firstSnapshotWaits: "small" });
    await Deno.symlink(REAL_LIST, listFilePath(env.listsDir, BIG_URL));
    for (
      const list of [
        object("BlockList", "big", { sources: [{ url: BIG_URL }], ...bigSpec }),
        inlineList("small", "||doubleclick.net^\n"),
      ]
    ) {
      await env.store.updateStatus({
        ...await env.store.apply(list, API),
        status: { conditions: [READY] },
      });
    }
    await env.store.apply(
      object("Policy", "all", { clientGroupRefs: ["all"], ...refs }),
      API,
    );
    control.hold("home/big");
    const a = env.start();
    let first = false;
    a.synced.then(() => first = true);
    await finishWithin("the compile", control.posted("home/big", 1));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(first, false, "the first build waits for the allow list");
    control.release("home/big");
    await finishWithin("the first build", a.synced);
    assert.deepEqual(
      a.current()!.lists.map((l) => l.key),
      ["home/big", "home/small"],
    );
    assert.deepEqual(a.current()!.policies[0]?.allowLists, ["home/big"]);
  });
}

Deno.test("a dangling reference is warned again each time it dangles anew", async () => {
  await using env = await setup();
  await env.store.apply(
    object("Policy", "p", { clientGroupRefs: [], blockListRefs: ["ads"] }),
    API,
  );
  const a = env.start();
  await finishWithin("the first build", a.synced);
  const warned = () => env.logged(/refers to BlockList "home\/ads"/).length;
  assert.equal(warned(), 1);
  await env.store.apply(inlineList("ads", "ads.example\n"), API);
  await waitFor(
    "the reference resolves",
    () => a.current()!.policies[0]?.blockLists.length === 1,
  );
  await env.store.delete({ kind: "BlockList", namespace: "home", name: "ads" });
  await waitFor(
    "it dangles again",
    () => a.current()!.policies[0]?.blockLists.length === 0,
  );
  assert.equal(warned(), 2);
  // A build for another reason does not repeat it.
  await env.store.apply(inlineList("other", "x.example\n"), API);
  await waitFor("another build", () => a.current()!.lists.length === 1);
  assert.equal(warned(), 2);
});
