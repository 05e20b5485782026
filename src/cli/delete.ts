/**
 * `kudurru delete KIND NAME`: remove an object the API owns, from this
 * machine's data directory or, after `kudurru login`, through the server's
 * API (target.ts decides).
 */
import { type Command, parseFlags, UsageError } from "./command.ts";
import { findKind } from "../api/v1alpha1/kinds.ts";
import { formatKey } from "../api/v1alpha1/meta.ts";
import { ManagedByError } from "../store/store.ts";
import { openLocalStore } from "./local_store.ts";
import { resolveTarget, TARGET_FLAGS } from "./target.ts";
import { ApiObjects } from "./api_objects.ts";

export const deleteCommand: Command = {
  name: "delete",
  summary: "Delete an object",
  usage:
    "  kudurru delete KIND NAME [-n NAMESPACE] [--force] [--context NAME | --data-dir DIR | --config FILE]\n" +
    "  --force  delete an object another manager (a file, bootstrap) owns (on this machine only)\n" +
    "  Deletes through the API of --context, or of the current context (kudurru login); with --data-dir\n" +
    "  or --config, or when not logged in, in this machine's data directory.",
  async run(args, io) {
    const { values, positionals } = parseFlags("delete", args, {
      ...TARGET_FLAGS,
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
    const target = await resolveTarget("delete", values, io);
    if (target.kind === "api") {
      if (values.force) {
        // The API never overrides another manager: that is what it is for.
        throw new UsageError(
          "kudurru delete: --force works on this machine's data directory (--data-dir); through the API, change the object where its manager declares it",
        );
      }
      using api = await ApiObjects.open(target.context);
      await api.delete(kind, key.namespace, name);
      io.stdout(`${formatKey(key)} deleted\n`);
      return 0;
    }
    const store = await openLocalStore(target.store, { existing: true });
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
