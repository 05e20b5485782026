import assert from "node:assert/strict";
import { API_VERSION, type KObject } from "../api/v1alpha1/meta.ts";
import { blockingSchema } from "../config/schema_resolver.ts";
import { memoryLogger } from "../log/logger.ts";
import { createMemoryStore } from "../store/memory/memory_store.ts";
import { BlockingAssembler } from "./blocking_assembler.ts";
import { finishWithin, waitFor } from "./testdata/zone_objects.ts";

const API = { manager: "api" };

function object(kind: string, name: string, spec: unknown): KObject {
  return {
    apiVersion: API_VERSION,
    kind,
    metadata: { name, namespace: "home" },
    spec,
  } as KObject;
}

Deno.test("BlockingAssembler builds lists, groups and policies and follows changes", async () => {
  const store = createMemoryStore();
  await store.apply(
    object("BlockList", "ads", { sources: [{ inline: "||ads.example^" }] }),
    API,
  );
  await store.apply(
    object("BlockList", "malware", {
      sources: [{ inline: "||malware.example^" }],
      response: { mode: "customIP", customIPs: ["192.0.2.66"] },
    }),
    API,
  );
  await store.apply(
    object("ClientGroup", "kids", { clients: [{ cidr: "10.0.0.0/24" }] }),
    API,
  );
  await store.apply(
    object("Policy", "kids", {
      clientGroupRefs: ["kids"],
      blockListRefs: ["ads", "gone"],
      blockTTL: "1m",
    }),
    API,
  );
  const listsDir = await Deno.makeTempDir();
  let changes = 0;
  const logger = memoryLogger();
  const assembler = new BlockingAssembler({
    store,
    listsDir,
    settings: blockingSchema.parse({ blockTTL: "5m" }),
    logger,
    onChange: () => changes++,
    debounceMs: 5,
  });
  assembler.start();
  try {
    await finishWithin("the first build", assembler.synced);
    const first = assembler.current()!;
    assert.equal(first.enabled, true);
    assert.deepEqual(first.response, {
      mode: "zeroIP",
      customIPs: [],
      ttl: 300,
    });
    assert.deepEqual(
      first.lists.map((l) => [l.key, l.ruleCount, l.response]),
      [
        ["home/ads", 1, undefined],
        // A BlockList's own answer travels with its compiled list.
        ["home/malware", 1, { mode: "customIP", customIPs: ["192.0.2.66"] }],
      ],
    );
    assert.deepEqual(first.groups, [{
      key: "home/kids",
      clients: [{ cidr: "10.0.0.0/24" }],
    }]);
    assert.deepEqual(first.policies[0]?.blockLists, ["home/ads"]);
    assert.equal(first.policies[0]?.blockTTL, 60);
    assert.ok(
      logger.lines.some((l) => /home\/gone.*which does not exist/.test(l)),
    );

    assembler.setDisabledUntil(2_000_000_000_000);
    const disabled = assembler.current()!;
    assert.equal(disabled.disabledUntil, 2_000_000_000_000);
    assert.equal(disabled.lists[0], first.lists[0], "lists are not rebuilt");
    assembler.setDisabledUntil(undefined);
    assert.equal(assembler.current()!.disabledUntil, undefined);

    const before = changes;
    await store.delete({ kind: "BlockList", namespace: "home", name: "ads" });
    await waitFor(
      "the list is gone",
      () => assembler.current()!.lists.length === 1,
    );
    assert.ok(changes > before, "every build is announced");
    assert.deepEqual(assembler.current()!.policies[0]?.blockLists, []);
  } finally {
    await finishWithin("the assembler's stop", assembler.stop());
    await Deno.remove(listsDir, { recursive: true });
    await store.close();
  }
});

Deno.test("BlockingAssembler names the lists whose Ready condition is False", async () => {
  const store = createMemoryStore();
  const applied = await store.apply(
    object("BlockList", "remote", {
      sources: [{ url: "https://lists.example/x.txt" }],
    }),
    API,
  );
  await store.apply(
    object("BlockList", "fine", { sources: [{ inline: "a.example" }] }),
    API,
  );
  const listsDir = await Deno.makeTempDir();
  const assembler = new BlockingAssembler({
    store,
    listsDir,
    settings: blockingSchema.parse({}),
    logger: memoryLogger(),
    onChange: () => {},
    debounceMs: 5,
  });
  assembler.start();
  try {
    await finishWithin("the first build", assembler.synced);
    assert.deepEqual(assembler.failedLists(), []);
    await store.updateStatus({
      ...applied,
      status: {
        conditions: [{
          type: "Ready",
          status: "False",
          reason: "SourcesFailed",
          message: "https://lists.example/x.txt: HTTP 503",
          lastTransitionTime: "2030-01-01T00:00:00Z",
        }],
      },
    });
    await waitFor(
      "the failure is seen",
      () => assembler.failedLists().length === 1,
    );
    assert.deepEqual(assembler.failedLists(), [
      "home/remote: https://lists.example/x.txt: HTTP 503",
    ]);
  } finally {
    await finishWithin("the assembler's stop", assembler.stop());
    await Deno.remove(listsDir, { recursive: true });
    await store.close();
  }
});
