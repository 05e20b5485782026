/**
 * `kudurru get KIND [NAME]`: print stored objects, from this machine's data
 * directory or, after `kudurru login`, from the server's API (target.ts
 * decides), in the same formats either way.
 */
import { type Command, parseFlags, UsageError } from "./command.ts";
import { findKind, type KindInfo } from "../api/v1alpha1/kinds.ts";
import { KINDS } from "../api/v1alpha1/kinds.ts";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { openLocalStore } from "./local_store.ts";
import { parseOutputFormat, renderObjects } from "./output.ts";
import { resolveTarget, type Target, TARGET_FLAGS } from "./target.ts";
import { ApiObjects } from "./api_objects.ts";

export const getCommand: Command = {
  name: "get",
  summary: "Print objects of one kind, or one object",
  usage:
    "  kudurru get KIND [NAME] [-n NAMESPACE | -A] [-o table|yaml|json] [--context NAME | --data-dir DIR | --config FILE]\n" +
    "  KIND is one of: " + KINDS.map((k) => k.kind).join(", ") +
    " (or a plural or short name)\n" +
    "  Reads the server of --context, or of the current context (kudurru login); with --data-dir or\n" +
    "  --config, or when not logged in, this machine's data directory.",
  async run(args, io) {
    const { values, positionals } = parseFlags("get", args, {
      ...TARGET_FLAGS,
      namespace: { type: "string", short: "n" },
      "all-namespaces": { type: "boolean", short: "A" },
      output: { type: "string", short: "o" },
    }, 2);
    const [kindWord, name] = positionals;
    if (!kindWord) throw new UsageError("kudurru get: name a KIND");
    const kind = findKind(kindWord);
    if (!kind) throw new UsageError(`kudurru get: unknown kind "${kindWord}"`);
    const format = parseOutputFormat("get", values.output);
    if (name && values["all-namespaces"]) {
      throw new UsageError(
        "kudurru get: -A lists every namespace; to get one object, name its namespace with -n",
      );
    }
    const namespace = kind.namespaced && !values["all-namespaces"]
      ? values.namespace ?? (name ? "default" : undefined)
      : undefined;
    const target = await resolveTarget("get", values, io);
    if (name) {
      const object = await getObject(target, kind, namespace ?? "", name);
      io.stdout(
        renderObjects([object], format === "table" ? "yaml" : format, true),
      );
      return 0;
    }
    io.stdout(
      renderObjects(await listObjects(target, kind, namespace), format, false),
    );
    return 0;
  },
};

/** One object from `target`. @throws when there is none */
export async function getObject(
  target: Target,
  kind: KindInfo,
  namespace: string,
  name: string,
): Promise<KObject> {
  if (target.kind === "api") {
    using api = await ApiObjects.open(target.context);
    return await api.get(kind, namespace, name);
  }
  const store = await openLocalStore(target.store, { readOnly: true });
  try {
    return await store.get({ kind: kind.kind, namespace, name });
  } finally {
    await store.close();
  }
}

/** Every object of `kind` in `target` (in `namespace`, or in all). */
export async function listObjects(
  target: Target,
  kind: KindInfo,
  namespace: string | undefined,
): Promise<KObject[]> {
  if (target.kind === "api") {
    using api = await ApiObjects.open(target.context);
    return await api.list(kind, namespace);
  }
  const store = await openLocalStore(target.store, { readOnly: true });
  try {
    return (await store.list(kind.kind, namespace ? { namespace } : {}))
      .items;
  } finally {
    await store.close();
  }
}
