/**
 * The policy editor's state from a Policy's spec, and the JSON merge patch
 * (RFC 7396) of the spec it makes: a field left empty is null, which
 * removes it, so the server's default applies. Fields the editor does not
 * show (blockedServices, queryLog, …) are left out of the patch, so they
 * stay as they are.
 */
import type { Issue, PolicySpec, Schedule } from "./lists_objects.ts";
import {
  type ScheduleForm,
  scheduleForm,
  scheduleSpec,
} from "./policy_schedule.ts";
import { strings } from "./strings.ts";

/** How blocked names are answered; "" is the server's blocking.blockMode. */
export const BLOCK_MODES = ["zeroIP", "nxdomain", "customIP", "refused"];

export interface PolicyForm {
  clientGroupRefs: string[];
  blockListRefs: string[];
  allowListRefs: string[];
  priority: string;
  allowOnly: boolean;
  blockMode: string;
  /** Addresses separated by commas or spaces. */
  customIPs: string;
  blockTTL: string;
  upstreamGroup: string;
  schedule: ScheduleForm;
}

/** The spec fields the editor writes, as a merge patch holds them. */
export interface PolicyPatch {
  clientGroupRefs: string[] | null;
  blockListRefs: string[] | null;
  allowListRefs: string[] | null;
  priority: number;
  allowOnly: boolean;
  blockMode: string | null;
  customIPs: string[] | null;
  blockTTL: string | null;
  upstreamGroup: string | null;
  schedule: Schedule | null;
}

export function policyForm(spec: PolicySpec | undefined): PolicyForm {
  return {
    clientGroupRefs: [...(spec?.clientGroupRefs ?? [])],
    blockListRefs: [...(spec?.blockListRefs ?? [])],
    allowListRefs: [...(spec?.allowListRefs ?? [])],
    priority: String(spec?.priority ?? 0),
    allowOnly: spec?.allowOnly ?? false,
    blockMode: spec?.blockMode ?? "",
    customIPs: (spec?.customIPs ?? []).join(", "),
    blockTTL: spec?.blockTTL ?? "",
    upstreamGroup: spec?.upstreamGroup ?? "",
    schedule: scheduleForm(spec?.schedule),
  };
}

const list = (names: readonly string[]) =>
  names.length === 0 ? null : [...names];
const text = (value: string) => value.trim() === "" ? null : value.trim();

/** The spec patch for the form, or the issues that stop it (spec paths). */
export function policyPatch(
  form: PolicyForm,
): { patch: PolicyPatch } | { issues: Issue[] } {
  const issues: Issue[] = [];
  const priority = Number(form.priority.trim());
  if (form.priority.trim() === "" || !Number.isInteger(priority)) {
    issues.push({ path: "spec.priority", message: strings.groups.badPriority });
  }
  const schedule = scheduleSpec(form.schedule);
  if ("issues" in schedule) issues.push(...schedule.issues);
  const customIPs = form.customIPs.split(/[\s,]+/).filter((a) => a !== "");
  if (issues.length > 0 || "issues" in schedule) return { issues };
  return {
    patch: {
      clientGroupRefs: list(form.clientGroupRefs),
      blockListRefs: list(form.blockListRefs),
      allowListRefs: list(form.allowListRefs),
      priority,
      allowOnly: form.allowOnly,
      blockMode: text(form.blockMode),
      customIPs: list(customIPs),
      blockTTL: text(form.blockTTL),
      upstreamGroup: text(form.upstreamGroup),
      schedule: schedule.schedule,
    },
  };
}

/** `names` with `name` in or out, keeping the order the spec had. */
export function toggled(
  names: readonly string[],
  name: string,
  on: boolean,
): string[] {
  const without = names.filter((n) => n !== name);
  return on ? [...without, name] : without;
}
