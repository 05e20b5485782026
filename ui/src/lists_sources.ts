/**
 * A block list's sources as the lists page shows them (where each comes
 * from, its status, the list's total and its Ready condition), the list
 * the "add" form creates, and a source switched on or off.
 */
import {
  type BlockList,
  type Condition,
  DEFAULT_NAMESPACE,
  type ListSource,
  type SourceStatus,
} from "./lists_objects.ts";
import { fill, strings } from "./strings.ts";

/** What a source's rules come from. */
export function sourceOrigin(source: ListSource): string {
  const t = strings.lists;
  if (source.url !== undefined) return source.url;
  if (source.inline !== undefined) {
    const lines = source.inline.split("\n").filter((l) => l.trim() !== "");
    return lines.length === 1
      ? t.inlineOne
      : fill(t.inlineMany, { count: lines.length });
  }
  if (source.configMapRef) {
    return fill(t.configMap, {
      name: source.configMapRef.name,
      key: source.configMapRef.key,
    });
  }
  return "";
}

/**
 * The status of each source, by position (the controller writes one entry
 * per source, in order); none while the status is of an older generation
 * (the sources may have moved).
 */
export function sourceStatuses(list: BlockList): (SourceStatus | undefined)[] {
  const sources = list.spec?.sources ?? [];
  const status = list.status;
  const current = status?.observedGeneration === undefined ||
    list.metadata.generation === undefined ||
    status.observedGeneration >= list.metadata.generation;
  return sources.map((_, i) => current ? status?.sources?.[i] : undefined);
}

/** Every source's rules, added up (what the dashboard counts too). */
export function ruleTotal(list: BlockList): number {
  return (list.status?.sources ?? []).reduce(
    (sum, s) => sum + (s.ruleCount ?? 0),
    0,
  );
}

/** The Ready condition, if the list has one yet. */
export function readyCondition(list: BlockList): Condition | undefined {
  return list.status?.conditions?.find((c) => c.type === "Ready");
}

/** Whether "refresh now" has anything to fetch: an enabled URL source. */
export function hasUrlSource(list: BlockList): boolean {
  return (list.spec?.sources ?? []).some((s) =>
    s.url !== undefined && s.enabled !== false
  );
}

/**
 * An object name from a list's URL: its host and file name, lowercased,
 * runs of other characters as "-" (https://big.oisd.nl/domains →
 * "big-oisd-nl-domains").
 */
export function nameFromUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return "";
  }
  const file = url.pathname.split("/").filter((p) => p !== "").pop() ?? "";
  const stem = file.replace(/\.(txt|list|hosts|conf)$/i, "");
  return `${url.hostname}-${stem}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 63)
    .replace(/-+$/, "");
}

export interface NewList {
  namespace: string;
  name: string;
  mode: "block" | "allow";
  /** Exactly one of url and inline. */
  url?: string;
  inline?: string;
}

/** The BlockList the "add" form creates: one source. */
export function newBlockList(input: NewList): BlockList {
  const source: ListSource = input.url !== undefined
    ? { url: input.url.trim() }
    : { inline: normalizeInline(input.inline ?? "") };
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "BlockList",
    metadata: {
      name: input.name.trim(),
      namespace: input.namespace.trim() || DEFAULT_NAMESPACE,
    },
    spec: { mode: input.mode, sources: [source] },
  };
}

/** Rules typed into a text area: one per line, ending with a newline. */
export function normalizeInline(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) =>
    l !== ""
  );
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

/** The sources with the one at `index` switched on or off. */
export function withSourceEnabled(
  sources: readonly ListSource[],
  index: number,
  enabled: boolean,
): ListSource[] {
  return sources.map((s, i) => i === index ? { ...s, enabled } : s);
}

/** What POST …:refresh answers (200, or 202 while still downloading). */
export interface RefreshOutcome {
  namespace: string;
  name: string;
  state: "fetched" | "pending" | "nothing";
  sources: {
    url: string;
    ok: boolean;
    changed?: boolean;
    fetchedAt?: string;
    error?: string;
  }[];
}

/** One line per source of a refresh, or one for the whole when none. */
export function refreshLines(outcome: RefreshOutcome): string[] {
  const t = strings.lists;
  if (outcome.state === "pending") return [t.refreshPending];
  if (outcome.state === "nothing") return [t.refreshNothing];
  return outcome.sources.map((s) =>
    s.ok
      ? fill(s.changed ? t.refreshChanged : t.refreshUnchanged, { url: s.url })
      : fill(t.refreshFailed, { url: s.url, error: s.error ?? "" })
  );
}
