/**
 * The four ways a group picks its servers for one query. A strategy only
 * orders the servers and says how many are asked at once; the group runs
 * the plan (starting the next server when one fails or is slow).
 */

/** The strategy names of `upstreams.groups.*.strategy`. */
export type StrategyName =
  | "parallel_best"
  | "strict"
  | "random"
  | "rtt_weighted";

/** Which servers to ask, in which order, and how many at once. */
export interface AttemptPlan {
  /** Server indexes in the order they are tried. */
  order: number[];
  /** How many are asked at once from the start. */
  parallel: number;
}

/** How many servers parallel_best asks at once. */
export const PARALLEL_BEST_WIDTH = 2;

/**
 * Plans one query over servers with these scores (lower is better):
 * - `strict`: configuration order, one at a time;
 * - `random`: a uniform shuffle, one at a time;
 * - `parallel_best`: best score first, the best two at once;
 * - `rtt_weighted`: a shuffle weighted by 1/score, one at a time.
 *
 * In `strict` and `random`, servers `failing` lately (ServerScore.failing)
 * come after the others, in the same order among themselves: asked first,
 * a dead server would cost every query a hedge delay (half the timeout
 * with two servers). Their failures fade, so they are asked first again
 * within a minute, and at once if the others fail.
 *
 * @param random a uniform number in [0, 1); tests pass a seeded one
 */
export function planAttempts(
  strategy: StrategyName,
  scores: readonly number[],
  random: () => number = Math.random,
  failing: readonly boolean[] = [],
): AttemptPlan {
  const indexes = scores.map((_, i) => i);
  switch (strategy) {
    case "strict":
      return { order: failingLast(indexes, failing), parallel: 1 };
    case "random":
      return {
        order: failingLast(weightedShuffle(indexes, () => 1, random), failing),
        parallel: 1,
      };
    case "parallel_best":
      return {
        // Array.prototype.sort is stable: ties keep configuration order.
        order: indexes.sort((a, b) => scores[a]! - scores[b]!),
        parallel: Math.min(PARALLEL_BEST_WIDTH, scores.length),
      };
    case "rtt_weighted":
      return {
        order: weightedShuffle(
          indexes,
          (i) => 1 / Math.max(scores[i]!, 1),
          random,
        ),
        parallel: 1,
      };
  }
}

function failingLast(order: number[], failing: readonly boolean[]): number[] {
  if (!order.some((i) => failing[i])) return order;
  return [
    ...order.filter((i) => !failing[i]),
    ...order.filter((i) => failing[i]),
  ];
}

/** Draws every index without replacement, each with chance ∝ its weight. */
function weightedShuffle(
  indexes: number[],
  weight: (i: number) => number,
  random: () => number,
): number[] {
  const left = [...indexes];
  const order: number[] = [];
  while (left.length > 0) {
    const total = left.reduce((sum, i) => sum + weight(i), 0);
    let point = random() * total;
    let pick = left.length - 1;
    for (let k = 0; k < left.length; k++) {
      point -= weight(left[k]!);
      if (point < 0) {
        pick = k;
        break;
      }
    }
    order.push(left[pick]!);
    left.splice(pick, 1);
  }
  return order;
}
