/** `kudurru get KIND [NAME]`: print stored objects. */
import { type Command, parseFlags, UsageError } from "./command.ts";
import { findKind } from "../api/v1alpha1/kinds.ts";
import { KINDS } from "../api/v1alpha1/kinds.ts";
import { openLocalStore, STORE_FLAGS } from "./local_store.ts";
import { parseOutputFormat, renderObjects } from "./output.ts";

export const getCommand: Command = {
  name: "get",
  summary: "Print objects of one kind, or one object",
  usage:
    "  kudurru get KIND [NAME] [-n NAMESPACE | -A] [-o table|yaml|json] [--data-dir DIR] [--config FILE]\n" +
    "  KIND is one of: " + KINDS.map((k) => k.kind).join(", ") +
    " (or a plural or short name)",
  async run(args, io) {
    const { values, positionals } = parseFlags("get", args, {
      ...STORE_FLAGS,
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
    const store = await openLocalStore(values, { readOnly: true });
    try {
      if (name) {
        const object = await store.get({
          kind: kind.kind,
          namespace: namespace ?? "",
          name,
        });
        io.stdout(
          renderObjects([object], format === "table" ? "yaml" : format, true),
        );
        return 0;
      }
      const list = await store.list(kind.kind, namespace ? { namespace } : {});
      io.stdout(renderObjects(list.items, format, false));
      return 0;
    } finally {
      await store.close();
    }
  },
};
