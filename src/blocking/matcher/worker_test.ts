/**
 * Posting CompiledListData to a real Worker shares its memory: the worker
 * answers like the main thread, and a write made by the main thread after
 * the post (clearing one node's rules, test-only) changes the worker's
 * answer, which a copy would not.
 */

import assert from "node:assert/strict";
import { compileRules } from "./compiler.ts";
import { openCompiledList } from "./open.ts";
import {
  labelOfSlot,
  LEN_MASK,
  type MatcherData,
  SLOT_WORDS,
} from "./layout.ts";
import { BLOCK, rulesFrom } from "./testdata/rules.ts";

function ask(
  worker: Worker,
  message: unknown,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (e) => resolve(e.data);
    worker.onerror = (e) => {
      e.preventDefault();
      reject(new Error(e.message));
    };
    worker.postMessage(message);
  });
}

/** The slot of the node whose label is `label` (unique in the test list). */
function slotOfLabel(layout: MatcherData, label: string): number {
  const slots = new Int32Array(layout.slots);
  const labels = new Uint8Array(layout.labels);
  for (let slot = 0; slot < layout.capacity; slot++) {
    if (labelOfSlot(slots, labels, slot) === label) return slot;
  }
  throw new Error(`no node ${label}`);
}

Deno.test("worker: compiled data posted to a Worker is shared, not copied", async () => {
  const data = compileRules(
    BLOCK,
    rulesFrom([
      "||zqxads.example^",
      "0.0.0.0 tracker.test",
      "@@||ok.zqxads.example^",
      "/^ad[0-9]+\\./",
    ]),
  );
  const names = [
    "zqxads.example.",
    "a.zqxads.example.",
    "a.ok.zqxads.example.",
    "tracker.test.",
    "x.tracker.test.",
    "ad7.site.",
    "nothing.example.",
  ];
  const local = openCompiledList(data);
  const worker = new Worker(
    new URL("./testdata/check_worker.ts", import.meta.url).href,
    {
      type: "module",
    },
  );
  try {
    assert.deepEqual(await ask(worker, { open: data }), {
      opened: true,
      shared: true,
    });
    const first = await ask(worker, { check: names });
    assert.deepEqual(first.verdicts, names.map((n) => local.check(n)));
    assert.equal(
      (first.verdicts as unknown[]).filter((v) => v !== null).length,
      5,
    );

    // Clear the rules of node "zqxads" in the main thread's view only.
    const layout = data.data as MatcherData;
    const slots = new Int32Array(layout.slots);
    const base = slotOfLabel(layout, "zqxads") * SLOT_WORDS;
    slots[base + 1] = slots[base + 1]! & LEN_MASK;

    const second = await ask(worker, {
      check: ["a.zqxads.example.", "tracker.test."],
    });
    assert.deepEqual(second.verdicts, [null, local.check("tracker.test.")]);
  } finally {
    worker.terminate();
  }
});
