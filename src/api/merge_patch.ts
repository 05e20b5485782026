/** JSON merge patch (RFC 7396), as the API and stored settings apply it. */

/**
 * `target` with `patch` merged in (RFC 7396 §2): objects merge member by
 * member, null removes a member, anything else replaces. Neither input is
 * changed.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) {
    return patch;
  }
  const base: Record<string, unknown> =
    typeof target === "object" && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete base[key];
    else base[key] = mergePatch(base[key], value);
  }
  return base;
}
