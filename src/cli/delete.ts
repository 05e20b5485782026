/** `kudurru delete KIND NAME`: remove an object the API owns. */
import { type Command, parseFlags, UsageError } from "./command.ts";
import { findKind } from "../api/v1alpha1/kinds.ts";
import { formatKey } from "../api/v1alpha1/meta.ts";
import { ManagedByError } from "../store/store.ts";
import { openLocalStore, STORE_FLAGS } from "./local_store.ts";

export const deleteCommand: Command = {
  name: "delete",
  summary: "Delete an object",
  usage:
    "  kudurru delete KIND NAME [-n NAMESPACE] [--force] [--data-dir DIR] [--config FILE]\n" +
    "  --force  delete an object another manager (a file, bootstrap) owns",
  async run(args, io) {
    const { values, positionals } = parseFlags("delete", args, {
      ...STORE_FLAGS,
      namespace: { type: "string", short: "n" },
      force: { type: "boolean" },
    }, 2);
    const [kindWord, name] = positionals;
    if (!kindWord || !name) {
      throw new UsageError("kudurru delete: name a KIND and a NAME");
    }
    const kind = findKind(kindWord);
    if (!kind) {
      throw new UsageError(`kudurru delete: unknown kind "${kindWord}"`);
    }
    const key = {
      kind: kind.kind,
      namespace: kind.namespaced ? values.namespace ?? "default" : "",
      name,
    };
    const store = await openLocalStore(values, { existing: true });
    try {
      await store.delete(key, {
        manager: "api",
        force: values.force ?? false,
        actor: "cli",
      });
      // As apply names it: Kind/namespace/name for namespaced kinds.
      io.stdout(`${formatKey(key)} deleted\n`);
      return 0;
    } catch (err) {
      if (err instanceof ManagedByError) {
        io.stderr(
          `kudurru delete: ${err.message}; ${
            ownerHint(err.owner)
          }, or pass --force\n`,
        );
        return 1;
      }
      throw err;
    } finally {
      await store.close();
    }
  },
};

/** Where the user should make the change instead, by owner. */
export function ownerHint(owner: string): string {
  if (owner.startsWith("file:")) {
    return `edit or remove it in ${owner.slice(5)}`;
  }
  if (owner === "bootstrap") return "it is a first-boot default";
  return `change it through ${owner}`;
}
