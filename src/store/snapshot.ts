/**
 * Backups as `kind: List` YAML, the same shape `kudurru apply -f` and
 * `kubectl get -o yaml` use (docs/design.md#the-store), and their restore.
 */
import YAML from "yaml";
import { keyOf, type KObject } from "../api/v1alpha1/meta.ts";
import { KINDS } from "../api/v1alpha1/kinds.ts";
import { keyOfInput, type ObjectValidator } from "./apply_rules.ts";
import {
  InvalidObjectError,
  NotFoundError,
  type SnapshotOptions,
  type Store,
} from "./store.ts";

/** Metadata the server fills in; a safe export leaves it out so the file applies anywhere. */
const SERVER_FIELDS = [
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
] as const;

/** `obj` without status and server-set metadata, as a safe export holds it. */
export function safeCopy(obj: KObject): KObject {
  const copy = structuredClone(obj);
  for (const f of SERVER_FIELDS) delete copy.metadata[f];
  delete copy.status;
  return copy;
}

/** Every object of `kinds` (default: KINDS order) as one `kind: List` document. */
export async function snapshotYaml(
  store: Store,
  opts: SnapshotOptions = {},
  kinds: readonly string[] = KINDS.map((k) => k.kind),
): Promise<string> {
  const items: KObject[] = [];
  for (const kind of kinds) {
    let token: string | undefined;
    do {
      const page = await store.list(
        kind,
        token === undefined ? { limit: 500 } : { limit: 500, continue: token },
      );
      items.push(...page.items.map((o) => (opts.safe ? safeCopy(o) : o)));
      token = page.continue;
    } while (token !== undefined);
  }
  return YAML.stringify({ apiVersion: "v1", kind: "List", items });
}

/** The objects of a YAML stream; `kind: List` documents are flattened. */
export function parseObjectList(text: string): unknown[] {
  const docs = YAML.parseAllDocuments(text, { uniqueKeys: true });
  const items: unknown[] = [];
  for (const [i, doc] of (Array.isArray(docs) ? docs : [docs]).entries()) {
    const err = doc.errors[0];
    if (err) {
      throw new Error(
        `Cannot parse restore input: document ${i + 1}: ${err.message}`,
        { cause: err },
      );
    }
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    const list = value as { kind?: unknown; items?: unknown };
    if (list.kind === "List") {
      if (!Array.isArray(list.items)) {
        throw new Error(
          `Cannot parse restore input: document ${i + 1}: List has no items`,
        );
      }
      items.push(...list.items);
    } else {
      items.push(value);
    }
  }
  return items;
}

async function storedOrUndefined(
  store: Store,
  obj: unknown,
): Promise<KObject | undefined> {
  try {
    return await store.get(keyOfInput(obj));
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/**
 * Applies every object of a snapshot. All of them are validated first, so an
 * invalid item fails the restore before anything is written. Each object keeps
 * its manager (or becomes "api"), uid and creationTimestamp, and its status.
 */
export async function restoreYaml(
  store: Store,
  text: string,
  validator: ObjectValidator,
): Promise<void> {
  const items = parseObjectList(text);
  const valid: KObject[] = [];
  for (const item of items) {
    const old = await storedOrUndefined(store, item);
    const result = old === undefined
      ? validator.validateObject(item)
      : validator.validateObject(item, old);
    if (!result.ok) {
      throw new InvalidObjectError(keyOfInput(item), result.issues);
    }
    if (result.object.status !== undefined) {
      const status = validator.validateStatus(result.object);
      if (!status.ok) {
        throw new InvalidObjectError(keyOf(result.object), status.issues);
      }
    }
    valid.push(result.object);
  }
  for (const obj of valid) {
    const applied = await store.apply(obj, {
      manager: obj.metadata.managedBy || "api",
      force: true,
      actor: "restore",
    });
    if (obj.status !== undefined) {
      await store.updateStatus({ ...applied, status: obj.status });
    }
  }
}
