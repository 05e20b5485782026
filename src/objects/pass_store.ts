/**
 * The store as one load pass writes to it. It takes the rebuild hold at the
 * pass's first write, so a pass that writes nothing (a steady poll) holds no
 * one up, and it notes what the pass deleted, so the deletion watch does not
 * reload for the loader's own deletions.
 */
import { formatKey } from "../api/v1alpha1/meta.ts";
import type { RebuildHold } from "../snapshot/rebuild_hold.ts";
import type { Store } from "../store/store.ts";

export interface PassStore {
  store: Store;
  /** Objects this pass deleted ("DNSRecordSet/default/www"). */
  deleted: ReadonlySet<string>;
  /** Lets go of the hold, if the pass took it. */
  end(): void;
}

export function passStore(store: Store, hold?: RebuildHold): PassStore {
  const deleted = new Set<string>();
  let release: (() => void) | undefined;
  const take = () => {
    if (hold) release ??= hold.take();
  };
  const apply: Store["apply"] = (obj, opts) => {
    take();
    return store.apply(obj, opts);
  };
  const del: Store["delete"] = (key, opts) => {
    take();
    deleted.add(formatKey(key));
    return store.delete(key, opts);
  };
  const wrapped = new Proxy(store, {
    get(target, prop) {
      if (prop === "apply") return apply;
      if (prop === "delete") return del;
      const value = Reflect.get(target, prop, target);
      // Bound: a driver's methods may rely on `this` (private fields).
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: wrapped, deleted, end: () => release?.() };
}
