/**
 * What a BlockList's status should be, given what the fetcher knows about
 * each of its sources. Pure: the loop compares the result with the stored
 * status and writes only when they differ, so its own write (which comes back
 * through the watch) finds nothing more to do.
 */
import type {
  BlockList,
  BlockListStatus,
  ListSource,
} from "../api/v1alpha1/blocklist.ts";
import type { ListFormat } from "../blocking/types.ts";
import { setCondition } from "./conditions.ts";
import type { ListFileMeta, SourceCounts } from "../blocking/list_meta.ts";

type SourceStatus = NonNullable<BlockListStatus["sources"]>[number];

/**
 * The error every configMapRef source gets: ConfigMaps need the kube store
 * driver (planned).
 */
export const CONFIG_MAP_UNSUPPORTED =
  "configMapRef sources need the Kubernetes store";

const MAX_MESSAGE = 1024;

/** What the fetcher knows about one URL. */
export interface UrlKnowledge {
  /** The body on disk (served, possibly stale). */
  meta?: ListFileMeta;
  /** The last failure since the last success. */
  error?: string;
}

/** Lookups the status needs; undefined from `url` means "not known yet". */
export interface SourceFacts {
  url(url: string): UrlKnowledge | undefined;
  /** Counts of an inline text (cached by the caller). */
  inline(text: string, format: ListFormat): SourceCounts | { error: string };
}

function clip(message: string): string {
  return message.length <= MAX_MESSAGE
    ? message
    : message.slice(0, MAX_MESSAGE - 1) + "…";
}

function withCounts(
  entry: SourceStatus,
  counts: SourceCounts | undefined,
): SourceStatus {
  if (!counts) return entry;
  return {
    ...entry,
    ruleCount: counts.ruleCount,
    invalid: counts.invalid,
    unsupported: counts.unsupported,
    ...(counts.title !== undefined ? { title: counts.title } : {}),
    ...(counts.examples !== undefined ? { examples: counts.examples } : {}),
  };
}

/** How a source stands, for the Ready condition. */
type Standing = "ok" | "stale" | "failed" | "disabled";

interface SourceReport {
  entry: SourceStatus;
  standing: Standing;
  rules: number;
  label: string;
}

function urlSource(
  source: ListSource & { url: string },
  known: UrlKnowledge,
  base: SourceStatus,
): SourceReport {
  const meta = known.meta;
  let entry: SourceStatus = { ...base, url: source.url };
  if (meta) {
    entry = withCounts({
      ...entry,
      digest: meta.digest,
      lastFetched: meta.fetchedAt,
      ...(meta.etag !== undefined ? { etag: meta.etag } : {}),
      ...(meta.lastModified !== undefined
        ? { lastModified: meta.lastModified }
        : {}),
    }, meta.counts[source.format]);
  }
  if (known.error !== undefined) entry.error = clip(known.error);
  const standing = known.error === undefined ? "ok" : meta ? "stale" : "failed";
  return { entry, standing, rules: entry.ruleCount ?? 0, label: source.url };
}

function sourceReport(
  source: ListSource,
  facts: SourceFacts,
): SourceReport | "pending" {
  const base: SourceStatus = source.name !== undefined
    ? { name: source.name }
    : {};
  const label = source.name ?? source.url ?? "inline";
  if (source.url !== undefined) {
    if (!source.enabled) {
      return {
        entry: { ...base, url: source.url },
        standing: "disabled",
        rules: 0,
        label,
      };
    }
    const known = facts.url(source.url);
    if (!known || (!known.meta && known.error === undefined)) return "pending";
    // Counts for a newly declared format are on their way (a recount).
    if (
      known.meta && known.error === undefined &&
      known.meta.counts[source.format] === undefined
    ) return "pending";
    return urlSource({ ...source, url: source.url }, known, base);
  }
  if (!source.enabled) {
    return { entry: base, standing: "disabled", rules: 0, label };
  }
  if (source.inline !== undefined) {
    const counts = facts.inline(source.inline, source.format);
    if ("error" in counts) {
      return {
        entry: { ...base, error: clip(counts.error) },
        standing: "failed",
        rules: 0,
        label,
      };
    }
    const entry = withCounts(base, counts);
    return { entry, standing: "ok", rules: counts.ruleCount, label };
  }
  return {
    entry: { ...base, error: CONFIG_MAP_UNSUPPORTED },
    standing: "failed",
    rules: 0,
    label,
  };
}

/**
 * The status `list` should have, or undefined while one of its URL sources
 * has neither a copy on disk nor a finished first attempt (writing then would
 * flip Ready to Unknown and back on every restart).
 */
export function blockListStatus(
  list: BlockList,
  facts: SourceFacts,
  now: Date,
): BlockListStatus | undefined {
  const reports: SourceReport[] = [];
  for (const source of list.spec?.sources ?? []) {
    const report = sourceReport(source, facts);
    if (report === "pending") return undefined;
    reports.push(report);
  }
  const generation = list.metadata.generation ?? 0;
  const failed = reports.filter((r) => r.standing === "failed");
  const stale = reports.filter((r) => r.standing === "stale");
  const enabled = reports.filter((r) => r.standing !== "disabled");
  const rules = reports.reduce((sum, r) => sum + r.rules, 0);
  const sources = (n: number) => `${n} source${n === 1 ? "" : "s"}`;
  const problems = (rs: SourceReport[]) =>
    rs.map((r) => `${r.label}: ${r.entry.error ?? ""}`).join("; ");
  const verdict = failed.length > 0
    ? {
      status: "False" as const,
      reason: "SourcesFailed",
      message: `${failed.length} of ${sources(enabled.length)} without rules: ${
        problems(failed)
      }`,
    }
    : stale.length > 0
    ? {
      status: "True" as const,
      reason: "ServingStale",
      message: `Serving the last good copy of ${stale.length} of ${
        sources(enabled.length)
      }: ${problems(stale)}`,
    }
    : {
      status: "True" as const,
      reason: "Fetched",
      message: `${rules} rule${rules === 1 ? "" : "s"} from ${
        sources(enabled.length)
      }`,
    };
  return {
    ...list.status,
    sources: reports.map((r) => r.entry),
    observedGeneration: generation,
    conditions: setCondition(list.status?.conditions, {
      type: "Ready",
      ...verdict,
      message: clip(verdict.message),
      observedGeneration: generation,
    }, now),
  };
}
