/**
 * Label values that stay bounded whatever the workers send: names from
 * configuration (block lists, upstream servers) up to a cap, then one
 * "other"; names from closed sets checked against the set.
 */

/** The label for values beyond a cap or outside a closed set. */
export const OTHER_LABEL = "other";

/** Keeps at most `max` distinct values; later new ones become "other". */
export class CappedLabel {
  readonly #seen = new Set<string>();
  readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  /** The label to use for `value`. */
  of(value: string): string {
    if (this.#seen.has(value)) return value;
    if (this.#seen.size >= this.max) return OTHER_LABEL;
    this.#seen.add(value);
    return value;
  }
}

/** `value` when the closed set has it, else `fallback`. */
export function closedLabel(
  value: string,
  allowed: ReadonlySet<string>,
  fallback: string = OTHER_LABEL,
): string {
  return allowed.has(value) ? value : fallback;
}

/** A count worth adding: finite and above zero (workers send plain numbers). */
export function isCount(n: unknown): n is number {
  return typeof n === "number" && Number.isFinite(n) && n > 0;
}
