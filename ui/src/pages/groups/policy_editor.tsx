/**
 * Edits a Policy: its client groups, block and allow lists (picked from
 * those in its namespace), priority, allow-only, the answer for blocked
 * names and its TTL, the upstream group and the schedule. Saves a JSON
 * merge patch of the spec with If-Match, so a change made meanwhile is
 * refused (409) rather than lost; the API's field errors show under the
 * fields.
 */
import { useState } from "preact/hooks";
import { ApiError, request } from "../../api.ts";
import { Field } from "../../components/field.tsx";
import {
  DEFAULT_NAMESPACE,
  fieldErrors,
  type Issue,
  issuesOf,
  objectPath,
  type Policy,
  qualifiedName,
} from "../../lists_objects.ts";
import {
  BLOCK_MODES,
  type PolicyForm,
  policyForm,
  policyPatch,
  toggled,
} from "../../policy_form.ts";
import { fill, strings } from "../../strings.ts";
import { useAction, WriteError } from "../lists/object_parts.tsx";
import { ScheduleEditor } from "./schedule_editor.tsx";

const FIELDS = [
  "spec.clientGroupRefs",
  "spec.blockListRefs",
  "spec.allowListRefs",
  "spec.priority",
  "spec.allowOnly",
  "spec.blockMode",
  "spec.customIPs",
  "spec.blockTTL",
  "spec.upstreamGroup",
  "spec.schedule.weekdays",
  "spec.schedule.start",
  "spec.schedule.end",
  "spec.schedule.tz",
  "spec.schedule",
];

/** What the pickers offer, in the policy's namespace. */
export interface Choices {
  groups: string[];
  lists: string[];
  upstreamGroups: string[];
}

export function PolicyEditor(
  { policy, choices, onSaved, onCancel, onReload }: {
    policy: Policy;
    choices: Choices;
    onSaved: () => void;
    onCancel: () => void;
    /** Reads the objects again (after a 409 conflict; the editor starts over). */
    onReload: () => void;
  },
) {
  const t = strings.groups;
  const [form, setForm] = useState<PolicyForm>(policyForm(policy.spec));
  const [local, setLocal] = useState<Issue[]>([]);
  const action = useAction();
  const set = (change: Partial<PolicyForm>) => setForm({ ...form, ...change });
  const id = `policy-${qualifiedName(policy).replace(/[^a-z0-9-]/g, "-")}`;
  const { byField, rest } = fieldErrors(
    [...local, ...issuesOf(action.error)],
    FIELDS,
  );
  const conflict = action.error instanceof ApiError &&
    action.error.key === "conflict";

  const save = async () => {
    const made = policyPatch(form);
    if ("issues" in made) {
      setLocal(made.issues);
      return;
    }
    setLocal([]);
    const version = policy.metadata.resourceVersion;
    const saved = await action.run(() =>
      request<Policy>("PATCH", objectPath("policies", policy), {
        body: { spec: made.patch },
        contentType: "application/merge-patch+json",
        ...(version !== undefined && { ifMatch: version }),
      })
    );
    if (saved) onSaved();
  };

  const picker = (
    field: "clientGroupRefs" | "blockListRefs" | "allowListRefs",
    legend: string,
    options: string[],
  ) => {
    const all = [...new Set([...options, ...form[field]])];
    const namespace = policy.metadata.namespace ?? DEFAULT_NAMESPACE;
    return (
      <fieldset class="lists-choice" aria-describedby={`${id}-${field}-error`}>
        <legend>{legend}</legend>
        {all.length === 0 && (
          <span class="muted">{fill(t.noneToPick, { namespace })}</span>
        )}
        {all.map((name) => (
          <label key={name} class="lists-inline">
            <input
              type="checkbox"
              name={`${field}-${name}`}
              checked={form[field].includes(name)}
              onChange={(e) =>
                set({
                  [field]: toggled(
                    form[field],
                    name,
                    (e.target as HTMLInputElement).checked,
                  ),
                })}
            />
            {options.includes(name) ? name : fill(t.missing, { name })}
          </label>
        ))}
        <span class="field-error" id={`${id}-${field}-error`}>
          {byField[`spec.${field}`]}
        </span>
      </fieldset>
    );
  };

  return (
    <form
      class="stack groups-editor"
      aria-label={fill(t.editing, { name: policy.metadata.name })}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      {picker("clientGroupRefs", t.groupRefs, choices.groups)}
      {picker("blockListRefs", t.blockLists, choices.lists)}
      {picker("allowListRefs", t.allowLists, choices.lists)}
      <div class="lists-row">
        <Field
          label={t.priority}
          name="priority"
          type="number"
          inputMode="numeric"
          value={form.priority}
          error={byField["spec.priority"]}
          onValue={(priority) => set({ priority })}
        />
        <label>
          {t.blockMode}
          <select
            name="blockMode"
            value={form.blockMode}
            onChange={(e) =>
              set({ blockMode: (e.target as HTMLSelectElement).value })}
          >
            {["", ...BLOCK_MODES].map((mode) => (
              <option key={mode} value={mode}>
                {t.blockModes[mode as keyof typeof t.blockModes] ?? mode}
              </option>
            ))}
          </select>
          {byField["spec.blockMode"] && (
            <span class="field-error">{byField["spec.blockMode"]}</span>
          )}
        </label>
        <Field
          label={t.customIPs}
          name="customIPs"
          placeholder={t.customIPsHint}
          value={form.customIPs}
          error={byField["spec.customIPs"]}
          onValue={(customIPs) => set({ customIPs })}
        />
        <Field
          label={t.blockTTL}
          name="blockTTL"
          placeholder={t.blockTTLHint}
          value={form.blockTTL}
          error={byField["spec.blockTTL"]}
          onValue={(blockTTL) => set({ blockTTL })}
        />
        <label>
          {t.upstreamGroup}
          <input
            name="upstreamGroup"
            value={form.upstreamGroup}
            placeholder={t.upstreamHint}
            list={`${id}-upstreams`}
            aria-invalid={byField["spec.upstreamGroup"] ? true : undefined}
            onInput={(e) =>
              set({ upstreamGroup: (e.target as HTMLInputElement).value })}
          />
          <datalist id={`${id}-upstreams`}>
            {choices.upstreamGroups.map((g) => <option key={g} value={g} />)}
          </datalist>
          {byField["spec.upstreamGroup"] && (
            <span class="field-error">{byField["spec.upstreamGroup"]}</span>
          )}
        </label>
      </div>
      <label class="lists-inline">
        <input
          type="checkbox"
          name="allowOnly"
          checked={form.allowOnly}
          onChange={(e) =>
            set({ allowOnly: (e.target as HTMLInputElement).checked })}
        />
        {t.allowOnly}
      </label>
      <ScheduleEditor
        id={id}
        value={form.schedule}
        errors={byField}
        onValue={(schedule) => set({ schedule })}
      />
      <div class="toolbar">
        <button type="submit" class="primary" disabled={action.busy}>
          {t.save}
        </button>
        <button type="button" onClick={onCancel}>{t.cancel}</button>
      </div>
      <WriteError error={action.error} issues={rest} />
      {conflict && (
        <div>
          <button type="button" onClick={onReload}>{t.reloadCurrent}</button>
        </div>
      )}
    </form>
  );
}
