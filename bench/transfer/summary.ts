/** Medians over rounds, printed with each round's figure. */

/** One figure over the rounds, and its decimals. */
export interface Sample {
  values: number[];
  digits: number;
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? sorted[mid]!
    : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** "median (round 1, round 2, …)", or the one value when all are equal. */
export function medianLine({ values, digits }: Sample): string {
  const text = (x: number) => x.toFixed(digits);
  if (values.every((v) => v === values[0])) return text(values[0]!);
  return `${text(median(values))} (${values.map(text).join(", ")})`;
}
