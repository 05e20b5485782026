/**
 * What `kudurru import` would change in the local data directory, object by
 * object, before anything is applied: created, changed (its spec differs),
 * unchanged, or refused because another manager owns it (a file in
 * objects.d, an integration; `kudurru apply` would refuse it too, see
 * src/objects/ownership.ts).
 */
import type { KObject } from "../api/v1alpha1/meta.ts";
import { formatKey, keyOf } from "../api/v1alpha1/meta.ts";
import { kindInfo } from "../api/v1alpha1/kinds.ts";
import { NotFoundError, type Store } from "../store/store.ts";
import { validateObject } from "../api/v1alpha1/validate.ts";

export type DiffVerb = "create" | "change" | "unchanged" | "owned";

export interface DiffLine {
  verb: DiffVerb;
  /** "DNSZone/home", "Policy/default/kids". */
  object: string;
  /** For `owned`: the manager that owns it. */
  owner?: string;
}

/** Managers whose objects an import through the API may write. */
const WRITABLE_OWNERS = new Set(["", "api", "bootstrap"]);

export async function importDiff(
  store: Store,
  objects: KObject[],
): Promise<DiffLine[]> {
  const lines: DiffLine[] = [];
  for (const object of objects) {
    const key = keyOf(object);
    if (key.namespace === "" && kindInfo(key.kind)?.namespaced) {
      key.namespace = "default";
    }
    const name = formatKey(key);
    let held: KObject;
    try {
      held = await store.get(key);
    } catch (error) {
      if (error instanceof NotFoundError) {
        lines.push({ verb: "create", object: name });
        continue;
      }
      throw error;
    }
    const owner = held.metadata.managedBy ?? "";
    if (!WRITABLE_OWNERS.has(owner)) {
      lines.push({ verb: "owned", object: name, owner });
    } else {
      // Compared with its defaults filled in, as the Store holds it.
      const checked = validateObject(object);
      const spec = checked.ok ? checked.object.spec : object.spec;
      lines.push({
        verb: canonical(held.spec) === canonical(spec) ? "unchanged" : "change",
        object: name,
      });
    }
  }
  return lines;
}

/** The diff as report lines. */
export function renderDiff(lines: DiffLine[]): string {
  return lines.map((l) =>
    l.verb === "owned"
      ? `would not apply ${l.object}: managed by ${l.owner}\n`
      : `would ${
        l.verb === "unchanged" ? "leave unchanged" : l.verb
      } ${l.object}\n`
  ).join("");
}

/** JSON with sorted keys, so two specs compare by content. */
function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v) =>
      v !== null && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0
          ),
        )
        : v,
  );
}
