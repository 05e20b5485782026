/**
 * A Worker for worker_test.ts: opens the compiled list it is sent and
 * answers check() calls, the way a data-plane worker uses a snapshot.
 *
 *   { open: CompiledListData }  -> { opened: true, shared: boolean }
 *   { check: string[] }         -> { verdicts: (ListVerdict | null)[] }
 */
/// <reference lib="deno.worker" />

import type { CompiledListData, ListMatcher } from "../../types.ts";
import { openCompiledList } from "../open.ts";

let matcher: ListMatcher | null = null;

self.onmessage = (event: MessageEvent) => {
  const message = event.data as { open?: CompiledListData; check?: string[] };
  if (message.open !== undefined) {
    matcher = openCompiledList(message.open);
    const layout = message.open.data as { slots: unknown; labels: unknown };
    self.postMessage({
      opened: true,
      shared: layout.slots instanceof SharedArrayBuffer &&
        layout.labels instanceof SharedArrayBuffer,
    });
  } else if (message.check !== undefined && matcher !== null) {
    const m = matcher;
    self.postMessage({ verdicts: message.check.map((name) => m.check(name)) });
  }
};
