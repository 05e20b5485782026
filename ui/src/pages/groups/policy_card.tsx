/**
 * One Policy: what it says (groups, lists, priority, schedule, the answer
 * for blocked names, upstream group), and, for a user who may, its editor
 * (open while the URL's `policy` names it) and delete.
 */
import { Fragment } from "preact";
import { request } from "../../api.ts";
import {
  displayName,
  objectPath,
  ownership,
  type Policy,
  qualifiedName,
} from "../../lists_objects.ts";
import { describeSchedule } from "../../policy_schedule.ts";
import { can } from "../../session.ts";
import { fill, strings } from "../../strings.ts";
import {
  DeleteButton,
  OwnerNote,
  useAction,
  WriteError,
} from "../lists/object_parts.tsx";
import { type Choices, PolicyEditor } from "./policy_editor.tsx";

export function PolicyCard(
  { policy, choices, editing, onEdit, onChanged }: {
    policy: Policy;
    choices: Choices;
    editing: boolean;
    /** Opens (true) or closes the editor. */
    onEdit: (open: boolean) => void;
    onChanged: () => void;
  },
) {
  const t = strings.groups;
  const action = useAction();
  const spec = policy.spec ?? {};
  const editable = !ownership(policy).readOnly;
  const mayUpdate = editable && can("policies", "update");
  const mayDelete = editable && can("policies", "delete");
  const headingId = `policy-${
    qualifiedName(policy).replace(/[^a-z0-9-]/g, "-")
  }-heading`;
  const names = (list: string[] | undefined) =>
    list?.length ? list.join(", ") : t.none;
  const rows: [string, string][] = [
    [t.groupRefs, names(spec.clientGroupRefs)],
    [t.blockLists, names(spec.blockListRefs)],
    [t.allowLists, names(spec.allowListRefs)],
    [t.priority, String(spec.priority ?? 0)],
    [t.schedule, describeSchedule(spec.schedule)],
    [
      t.blockMode,
      [
        t.blockModes[(spec.blockMode ?? "") as keyof typeof t.blockModes] ??
          spec.blockMode,
        spec.customIPs?.join(", "),
      ].filter(Boolean).join(": "),
    ],
    ...(spec.blockTTL ? [[t.blockTTL, spec.blockTTL] as [string, string]] : []),
    ...(spec.upstreamGroup
      ? [[t.upstreamGroup, spec.upstreamGroup] as [string, string]]
      : []),
    ...(spec.allowOnly ? [[t.allowOnly, "✓"] as [string, string]] : []),
  ];
  const remove = async () => {
    const version = policy.metadata.resourceVersion;
    const gone = await action.run(async () => {
      await request("DELETE", objectPath("policies", policy), {
        ...(version !== undefined && { ifMatch: version }),
      });
      return true;
    });
    if (gone) onChanged();
  };

  return (
    <article
      class="panel groups-card"
      aria-labelledby={headingId}
      data-testid={`policy-${qualifiedName(policy)}`}
    >
      <h3 id={headingId}>{displayName(policy)}</h3>
      <OwnerNote obj={policy} />
      {editing && mayUpdate
        ? (
          <PolicyEditor
            key={policy.metadata.resourceVersion}
            policy={policy}
            choices={choices}
            onSaved={() => {
              onEdit(false);
              onChanged();
            }}
            onCancel={() => onEdit(false)}
            onReload={onChanged}
          />
        )
        : (
          <>
            <dl class="groups-summary">
              {rows.map(([k, v]) => (
                <Fragment key={k}>
                  <dt>{k}</dt>
                  <dd>{v}</dd>
                </Fragment>
              ))}
            </dl>
            {(mayUpdate || mayDelete) && (
              <div class="toolbar lists-actions">
                {mayUpdate && (
                  <button
                    type="button"
                    aria-label={fill(t.editing, { name: displayName(policy) })}
                    onClick={() => onEdit(true)}
                  >
                    {t.edit}
                  </button>
                )}
                {mayDelete && (
                  <DeleteButton
                    label={t.deletePolicy}
                    name={displayName(policy)}
                    busy={action.busy}
                    onDelete={() => void remove()}
                  />
                )}
              </div>
            )}
            <WriteError error={action.error} />
          </>
        )}
    </article>
  );
}
