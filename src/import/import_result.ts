/**
 * What an import from another DNS server's configuration gives
 * (`kudurru import TOOL PATH`, src/cli/import.ts): the objects to apply
 * (`kind: List` YAML that `kudurru apply -f` takes), the kudurru.yaml
 * settings they need (upstream groups and conditional forwarding are
 * settings, not objects), and a report of what was mapped and what was
 * skipped, and why, so nothing is dropped in silence.
 */
import type { KObject } from "../api/v1alpha1/meta.ts";

/** One line of the report. */
export interface ImportNote {
  /** Where in the input: "named.conf:12", "filters[3]", "gravity.db adlist 7". */
  where: string;
  /** What it was, in the tool's words: "zone example.com (primary)". */
  what: string;
  /** Mapped: what it became ("DNSZone example-com"); skipped: why not. */
  detail: string;
}

export interface ImportReport {
  mapped: ImportNote[];
  skipped: ImportNote[];
}

export interface ImportResult {
  /** Objects to apply, each valid for its kind (src/api/v1alpha1/validate.ts). */
  objects: KObject[];
  /**
   * kudurru.yaml settings to merge (`upstreams`, `blocking`, `cache`, …),
   * as the file writes them; empty when none.
   */
  settings: Record<string, unknown>;
  report: ImportReport;
}

/** An input that is not what the importer reads: the message says what it is instead. */
export class ImportError extends Error {
  override name = "ImportError";
}

/** Reads the file at a path; tests pass their own. */
export type ReadFile = (path: string) => Promise<Uint8Array>;
