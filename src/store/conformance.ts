/**
 * The Store conformance suite: the tests every driver (memory, sqlite, and
 * later kube) must pass, so they are interchangeable. A driver's test file
 * calls runStoreConformance with a function that opens a fresh, empty store.
 *
 * ```ts
 * runStoreConformance("memory", (hints) => Promise.resolve(createMemoryStore(hints)));
 * ```
 */
import { registerApplyTests } from "./conformance_apply.ts";
import { registerAuditTests } from "./conformance_audit.ts";
import type { OpenStore } from "./conformance_fixtures.ts";
import { registerObjectTests } from "./conformance_objects.ts";
import { registerPageTests } from "./conformance_pages.ts";
import { registerRuntimeTests } from "./conformance_runtime.ts";
import { registerWatchTests } from "./conformance_watch.ts";

export type { ConformanceHints, OpenStore } from "./conformance_fixtures.ts";

/** Registers the suite as Deno tests named "<name> <behaviour>". */
export function runStoreConformance(name: string, open: OpenStore): void {
  registerApplyTests(name, open);
  registerObjectTests(name, open);
  registerPageTests(name, open);
  registerWatchTests(name, open);
  registerRuntimeTests(name, open);
  registerAuditTests(name, async (now) => {
    const store = await open({ now });
    return {
      store,
      readAudit: (query) => store.readAudit(query),
      close: () => store.close(),
    };
  });
}
