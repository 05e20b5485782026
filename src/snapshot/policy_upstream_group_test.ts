import assert from "node:assert/strict";
import { API_VERSION, type KObject } from "../api/v1alpha1/meta.ts";
import { blockingSchema } from "../config/schema_resolver.ts";
import { memoryLogger } from "../log/logger.ts";
import { createMemoryStore } from "../store/memory/memory_store.ts";
import { BlockingAssembler } from "./blocking_assembler.ts";
import { finishWithin } from "./testdata/zone_objects.ts";

// kudurru serve passes the configured group names; this checks a Policy
// naming another is logged while the policy keeps it (its queries SERVFAIL).
Deno.test("BlockingAssembler warns about a Policy naming a missing upstream group", async () => {
  const store = createMemoryStore();
  const kids = {
    apiVersion: API_VERSION,
    kind: "Policy",
    metadata: { name: "kids", namespace: "home" },
    spec: { clientGroupRefs: ["default"], priority: 10, upstreamGroup: "kidz" },
  } as KObject;
  await store.apply(kids, { manager: "api" });
  const listsDir = await Deno.makeTempDir();
  const logger = memoryLogger();
  const assembler = new BlockingAssembler({
    store,
    listsDir,
    settings: blockingSchema.parse({}),
    upstreamGroups: ["default"],
    logger,
    onChange: () => {},
    debounceMs: 5,
  });
  assembler.start();
  try {
    await finishWithin("the first build", assembler.synced);
    assert.equal(assembler.current()?.policies[0]?.upstreamGroup, "kidz");
    assert.ok(
      logger.lines.some((l) =>
        /Policy \\"home\/kids\\" upstreamGroup names no upstream group \\"kidz\\"/
          .test(l)
      ),
      logger.lines.join("\n"),
    );
  } finally {
    await assembler.stop();
    await store.close();
    await Deno.remove(listsDir, { recursive: true });
  }
});
