/** "Did you mean …?" for unknown keys and environment variables. */

/** Levenshtein distance between two strings. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The candidate closest to `word` (case-insensitive), or undefined when none
 * is close enough to be a plausible typo.
 */
export function closestMatch(
  word: string,
  candidates: readonly string[],
): string | undefined {
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  const limit = Math.max(2, Math.floor(w.length / 3));
  if (bestDistance <= limit) return best;
  // An abbreviation ("proto" for "protocols") is a typo too.
  return w.length >= 3
    ? candidates.find((c) => c.toLowerCase().startsWith(w))
    : undefined;
}
