/**
 * One-click block or allow of a name from the query log, and its undo.
 *
 * A click writes the rule `||name^` into the inline source of a BlockList
 * the UI keeps for it: `quick-block` / `quick-allow` for everyone, or
 * `quick-block-<group>` / `quick-allow-<group>` for one client group, in
 * the namespace of the policies it must reach, and adds that list to those
 * policies (blockListRefs or allowListRefs): every policy for everyone, the
 * policies naming the group for a group. plan() says which writes that
 * takes, each with the write that undoes it; the page runs them in order
 * (each with If-Match) and the undo in reverse.
 */

/** What the plan reads of a BlockList. */
export interface ListObject {
  metadata: { name: string; namespace: string; resourceVersion: string };
  spec: {
    mode?: "block" | "allow";
    sources: { inline?: string; [key: string]: unknown }[];
    [key: string]: unknown;
  };
}

/** What the plan reads of a Policy. */
export interface PolicyObject {
  metadata: { name: string; namespace: string; resourceVersion: string };
  spec: {
    clientGroupRefs?: string[];
    blockListRefs?: string[];
    allowListRefs?: string[];
  };
}

export type QuickAction = "block" | "allow";

/** Everyone, or the client group `namespace/name`. */
export type QuickScope = { kind: "everyone" } | {
  kind: "group";
  namespace: string;
  name: string;
};

/** One write to the API; `undo` puts back what it changed. */
export interface Write {
  method: "POST" | "PATCH" | "DELETE";
  /** Below api/v1/. */
  path: string;
  body?: unknown;
  /** The resourceVersion the write expects (If-Match); PATCH and DELETE. */
  ifMatch?: string;
  /** What undoes it, once it is done (its If-Match is the version the write gave). */
  undo: Omit<Write, "undo" | "ifMatch">;
}

/** The rule a click writes. */
export function ruleFor(domain: string): string {
  return `||${domain.replace(/\.$/, "").toLowerCase()}^`;
}

/** The name of the list a click writes to. */
export function listName(action: QuickAction, scope: QuickScope): string {
  const base = `quick-${action}`;
  if (scope.kind === "everyone") return base;
  // Object names are DNS labels: the group's name fits after the prefix.
  return `${base}-${scope.name}`.slice(0, 63).replace(/-+$/, "");
}

const listPath = (namespace: string, name?: string) =>
  `namespaces/${namespace}/blocklists${name === undefined ? "" : `/${name}`}`;
const policyPath = (p: PolicyObject) =>
  `namespaces/${p.metadata.namespace}/policies/${p.metadata.name}`;

/**
 * The writes that block or allow `domain` for `scope`, given the lists and
 * policies there are now; empty when nothing needs to change (the rule is
 * there and every policy has the list). Undefined when no policy would
 * apply it (no policy names the group).
 */
export function plan(
  domain: string,
  action: QuickAction,
  scope: QuickScope,
  lists: readonly ListObject[],
  policies: readonly PolicyObject[],
): Write[] | undefined {
  const reached = policies.filter((p) =>
    scope.kind === "everyone" ||
    (p.metadata.namespace === scope.namespace &&
      (p.spec.clientGroupRefs ?? []).includes(scope.name))
  );
  if (reached.length === 0) return undefined;
  const name = listName(action, scope);
  const rule = ruleFor(domain);
  const refs = action === "block" ? "blockListRefs" : "allowListRefs";
  const writes: Write[] = [];
  const namespaces = [...new Set(reached.map((p) => p.metadata.namespace))]
    .sort();
  for (const namespace of namespaces) {
    const list = lists.find((l) =>
      l.metadata.namespace === namespace && l.metadata.name === name
    );
    if (list === undefined) {
      writes.push({
        method: "POST",
        path: listPath(namespace),
        body: {
          apiVersion: "kudurru.io/v1alpha1",
          kind: "BlockList",
          metadata: { name, namespace },
          spec: {
            mode: action,
            sources: [{ inline: `${rule}\n`, format: "adblock" }],
          },
        },
        undo: { method: "DELETE", path: listPath(namespace, name) },
      });
    } else {
      const sources = list.spec.sources;
      const first = sources[0] ?? {};
      const lines = (first.inline ?? "").split("\n").filter((l) => l !== "");
      if (!lines.includes(rule)) {
        writes.push({
          method: "PATCH",
          path: listPath(namespace, name),
          ifMatch: list.metadata.resourceVersion,
          body: {
            spec: {
              sources: [
                { ...first, inline: [...lines, rule].join("\n") + "\n" },
                ...sources.slice(1),
              ],
            },
          },
          undo: {
            method: "PATCH",
            path: listPath(namespace, name),
            body: { spec: { sources } },
          },
        });
      }
    }
  }
  for (const policy of reached) {
    const held = policy.spec[refs] ?? [];
    if (held.includes(name)) continue;
    writes.push({
      method: "PATCH",
      path: policyPath(policy),
      ifMatch: policy.metadata.resourceVersion,
      body: { spec: { [refs]: [...held, name] } },
      undo: {
        method: "PATCH",
        path: policyPath(policy),
        // null removes the member the click added (RFC 7396).
        body: { spec: { [refs]: held.length === 0 ? null : held } },
      },
    });
  }
  return writes;
}

/** `namespace/name` of a group as the query log names it. */
export function groupScope(group: string): QuickScope | undefined {
  const slash = group.indexOf("/");
  if (slash <= 0 || slash === group.length - 1) return undefined;
  return {
    kind: "group",
    namespace: group.slice(0, slash),
    name: group.slice(slash + 1),
  };
}
