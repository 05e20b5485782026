/** How numbers, times and durations read in the UI. */

const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

export function count(n: number): string {
  return integer.format(n);
}

export function percent(n: number): string {
  return `${decimal.format(n)} %`;
}

/** A duration in µs, as µs, ms or s. */
export function duration(us: number): string {
  if (us < 1000) return `${integer.format(us)} µs`;
  if (us < 1_000_000) return `${decimal.format(us / 1000)} ms`;
  return `${decimal.format(us / 1_000_000)} s`;
}

/** A time: the time of day for today, the date too before. */
export function time(iso: string, now = new Date()): string {
  const at = new Date(iso);
  const sameDay = at.toDateString() === now.toDateString();
  return at.toLocaleString(undefined, {
    ...(sameDay ? {} : { month: "short", day: "numeric" }),
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
}
