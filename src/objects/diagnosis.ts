/**
 * Diagnoses: every problem (and every notable ownership change) a load finds.
 * A load never aborts; it records a Diagnosis and applies the rest.
 */

/** Why a diagnosis was recorded. The last five are informational. */
export type DiagnosisReason =
  | "ReadFailed"
  | "EmptyFile"
  | "InvalidYAML"
  | "NotAnObject"
  | "UnknownKind"
  | "Invalid"
  | "Duplicate"
  | "ManagedByOther"
  | "OwnerUnreadable"
  | "ApplyFailed"
  | "DeleteFailed"
  | "ListFailed"
  | "Adopted"
  | "TakenOver"
  | "Moved"
  | "Ignored"
  | "Unsettled";

export type DiagnosisSeverity = "error" | "warning" | "info";

/** One finding of a load, JSON-ready for /healthz and the UI. */
export interface Diagnosis {
  severity: DiagnosisSeverity;
  reason: DiagnosisReason;
  /** The source: "kudurru.yaml", "objects.d/zones.yaml", or "objects.d/" for the directory. */
  source: string;
  /** 1-based YAML document (or inline list index + 1). */
  document?: number;
  /** "DNSZone/root" or "Policy/default/default". */
  object?: string;
  /** The manager that owns the object, for ownership findings. */
  owner?: string;
  /** Field paths, for validation findings. */
  fields?: string[];
  message: string;
  /** What the operator can do about it. */
  hint?: string;
}

/** The reasons that mean a document could not even be identified (last-good protection). */
export const UNIDENTIFIABLE_REASONS: ReadonlySet<DiagnosisReason> = new Set([
  "InvalidYAML",
  "NotAnObject",
  "UnknownKind",
]);

/** Sorts by source, then document (documentless first), keeping insertion order otherwise. */
export function sortDiagnoses(diagnoses: Diagnosis[]): Diagnosis[] {
  return diagnoses
    .map((d, i) => ({ d, i }))
    .sort((a, b) =>
      compareStrings(a.d.source, b.d.source) ||
      (a.d.document ?? 0) - (b.d.document ?? 0) ||
      a.i - b.i
    )
    .map(({ d }) => d);
}

/** Counts by severity, all three present. */
export function countBySeverity(
  diagnoses: readonly Diagnosis[],
): Record<DiagnosisSeverity, number> {
  const counts = { error: 0, warning: 0, info: 0 };
  for (const d of diagnoses) counts[d.severity]++;
  return counts;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
