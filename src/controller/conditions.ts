/**
 * Status conditions the Kubernetes way (api-conventions): one entry per type,
 * and lastTransitionTime moves only when a condition's status flips, so
 * rewriting the same verdict never churns the object.
 */
import type { z } from "zod";
import type { conditionSchema } from "../api/v1alpha1/meta.ts";

/** A condition as status schemas hold it. */
export type StatusCondition = z.output<typeof conditionSchema>;

/** A condition as a controller decides it; the time is filled in by setCondition. */
export type ConditionVerdict = Omit<StatusCondition, "lastTransitionTime">;

/**
 * `conditions` with `verdict` set: replaces the entry of the same type in
 * place (keeping its lastTransitionTime unless the status flipped) or appends.
 */
export function setCondition(
  conditions: readonly StatusCondition[] | undefined,
  verdict: ConditionVerdict,
  now: Date,
): StatusCondition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((c) => c.type === verdict.type);
  const previous = index >= 0 ? list[index] : undefined;
  const lastTransitionTime =
    previous?.status === verdict.status && previous.lastTransitionTime
      ? previous.lastTransitionTime
      : now.toISOString();
  const next: StatusCondition = { ...verdict, lastTransitionTime };
  if (index >= 0) list[index] = next;
  else list.push(next);
  return list;
}

/** `conditions` without the entries of these types. */
export function removeConditions(
  conditions: readonly StatusCondition[] | undefined,
  types: ReadonlySet<string>,
): StatusCondition[] {
  return (conditions ?? []).filter((c) => !types.has(c.type));
}
