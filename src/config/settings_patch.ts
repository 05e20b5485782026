/**
 * Which keys a settings patch (`PATCH /api/v1/settings`, a JSON merge patch
 * over the kudurru.yaml shape) may touch: known keys that are neither
 * hostOnly (privileged: addresses, paths, directories) nor set by the
 * environment (envLocked). Everything else is refused by name before any
 * value is looked at, so no privileged setting is reachable through the API.
 */
import { closestMatch } from "./closest_match.ts";
import type { Setting } from "./settings_table.ts";

/** A key the patch may not touch, and why. */
export interface SettingsPatchIssue {
  /** The dotted key as written in the patch ("cache.maxTTL"). */
  path: string;
  message: string;
}

/** Every key of `patch` that may not be patched, with its reason. */
export function settingsPatchIssues(
  patch: Record<string, unknown>,
  table: readonly Setting[],
): SettingsPatchIssue[] {
  const byKey = new Map(table.map((s) => [s.key, s]));
  const keys = table.map((s) => s.key);
  const issues: SettingsPatchIssue[] = [];
  const visit = (object: Record<string, unknown>, prefix: string) => {
    for (const [name, value] of Object.entries(object)) {
      const path = prefix === "" ? name : `${prefix}.${name}`;
      const setting = byKey.get(path);
      if (setting !== undefined) {
        const problem = refusal(setting);
        if (problem !== undefined) issues.push({ path, message: problem });
        continue;
      }
      const below = table.filter((s) => s.key.startsWith(`${path}.`));
      if (below.length === 0) {
        const hint = closestMatch(path, keys);
        issues.push({
          path,
          message: `unknown setting${hint ? `; did you mean "${hint}"?` : ""}`,
        });
      } else if (value === null) {
        // Drops the API's values of a whole section: refused only when
        // the section holds keys the API could never have set.
        const refused = below.find((s) => refusal(s) !== undefined);
        if (refused !== undefined) {
          issues.push({ path, message: `${refused.key}: ${refusal(refused)}` });
        }
      } else if (isPlainObject(value)) {
        visit(value, path);
      } else {
        issues.push({
          path,
          message: "is a section: give its keys, as in kudurru.yaml",
        });
      }
    }
  };
  visit(patch, "");
  return issues;
}

/** Why the API may not change `setting`, or undefined when it may. */
function refusal(setting: Setting): string | undefined {
  if (setting.hostOnly) {
    return "is host-only: set it in kudurru.yaml or the host's environment";
  }
  if (setting.envLocked) {
    return `is set by ${setting.env} in the server's environment, which wins over the API`;
  }
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
