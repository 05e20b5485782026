/**
 * What one load (or one `kudurru apply -f`) did: per-object outcomes, counts
 * and diagnoses. JSON-ready.
 */
import { type Diagnosis, sortDiagnoses } from "./diagnosis.ts";

/** The `result` label of kudurru_objects_applied_total. */
export type ApplyResult =
  | "created"
  | "updated"
  | "unchanged"
  | "deleted"
  | "invalid"
  | "conflict"
  | "error";

export const APPLY_RESULTS: readonly ApplyResult[] = [
  "created",
  "updated",
  "unchanged",
  "deleted",
  "invalid",
  "conflict",
  "error",
];

/** What happened to one object (or one rejected document). */
export interface ObjectOutcome {
  /** "DNSZone/root"; absent for documents that could not be identified. */
  object?: string;
  source: string;
  document?: number;
  result: ApplyResult;
}

/** One source as the last load saw it. */
export interface SourceSummary {
  name: string;
  manager: string;
  /** False when the source could not be read. */
  read: boolean;
  /** Objects it declares (identified documents, List items counted one by one). */
  objects: number;
  /** True when nothing it owns was deleted or taken over this pass (last-good protection). */
  protected: boolean;
}

export interface LoadReport {
  /** When the load started (ISO 8601). */
  time: string;
  durationSeconds: number;
  sources: SourceSummary[];
  outcomes: ObjectOutcome[];
  counts: Record<ApplyResult, number>;
  /** Sorted by source, then document. */
  diagnoses: Diagnosis[];
}

/** Collects a report while a pass runs. */
export class ReportBuilder {
  readonly #started = performance.now();
  readonly #time = new Date().toISOString();
  readonly sources: SourceSummary[] = [];
  readonly outcomes: ObjectOutcome[] = [];
  readonly diagnoses: Diagnosis[] = [];
  readonly #onOutcome: ((o: ObjectOutcome) => void) | undefined;

  /** `onOutcome` hears of each outcome as it is known (the object written, or not). */
  constructor(onOutcome?: (o: ObjectOutcome) => void) {
    this.#onOutcome = onOutcome;
  }

  outcome(o: ObjectOutcome): void {
    this.outcomes.push(o);
    this.#onOutcome?.(o);
  }

  diagnose(d: Diagnosis): void {
    this.diagnoses.push(d);
  }

  finish(): LoadReport {
    const counts = Object.fromEntries(
      APPLY_RESULTS.map((r) => [r, 0]),
    ) as Record<
      ApplyResult,
      number
    >;
    for (const o of this.outcomes) counts[o.result]++;
    return {
      time: this.#time,
      durationSeconds: (performance.now() - this.#started) / 1000,
      sources: this.sources,
      outcomes: this.outcomes,
      counts,
      diagnoses: sortDiagnoses(this.diagnoses),
    };
  }
}
