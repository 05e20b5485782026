/**
 * Role bindings: the API's (which may be deleted) and the configuration's
 * (read-only), and a new binding of a role, at cluster scope or for one
 * zone, to a user, a group or a service account.
 */
import { useState } from "preact/hooks";
import { request } from "../../api.ts";
import {
  bindingName,
  ROLES,
  type Scope,
  scopeLabel,
  scopeOf,
} from "../../access_scope.ts";
import { ErrorBox } from "../../components/error_box.tsx";
import { Field } from "../../components/field.tsx";
import { useApi } from "../../components/use_api.ts";
import { can } from "../../session.ts";
import { fill, strings } from "../../strings.ts";
import {
  ConfirmButton,
  issuesOf,
  Notice,
  SelectField,
  useAction,
} from "./form_parts.tsx";
import type { UserSummary } from "./users.tsx";

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

interface Binding {
  role: string;
  scope: Scope;
  subjects: Subject[];
}

interface RoleBinding {
  metadata: { name: string; managedBy?: string };
  spec: Binding;
}

const SUBJECT_KINDS = ["User", "Group", "ServiceAccount"] as const;

function subjectsLabel(subjects: readonly Subject[]): string {
  return subjects.map((s) =>
    `${strings.access.binding.kinds[s.kind as "User"] ?? s.kind} ${
      s.namespace ? `${s.namespace}/` : ""
    }${s.name}`
  ).join(", ");
}

export function BindingsTab() {
  const t = strings.access.binding;
  const bindings = useApi<{ items: RoleBinding[]; configured: Binding[] }>(
    "rolebindings",
  );
  const action = useAction();
  const mayDelete = can("rolebindings", "delete");
  const configured = bindings.data?.configured ?? [];
  return (
    <>
      {can("rolebindings", "create") && <NewBinding onMade={bindings.reload} />}
      <section aria-labelledby="bindings-title">
        <h2 id="bindings-title">{strings.access.bindings}</h2>
        <Notice text={action.notice} />
        <ErrorBox error={action.error} />
        <ErrorBox error={bindings.error} onRetry={bindings.reload} />
        <table class="cards" data-testid="bindings">
          <thead>
            <tr>
              <th>{t.name}</th>
              <th>{t.role}</th>
              <th>{t.scope}</th>
              <th>{t.subjects}</th>
              <th>{strings.access.actions}</th>
            </tr>
          </thead>
          <tbody>
            {bindings.data?.items.map((b) => (
              <tr key={b.metadata.name} data-binding={b.metadata.name}>
                <td data-label={t.name}>{b.metadata.name}</td>
                <td data-label={t.role}>{b.spec.role}</td>
                <td data-label={t.scope}>{scopeLabel(b.spec.scope)}</td>
                <td data-label={t.subjects}>
                  {subjectsLabel(b.spec.subjects)}
                </td>
                <td data-label={strings.access.actions} class="actions">
                  {mayDelete && (
                    <ConfirmButton
                      label={t.delete}
                      name={`${t.delete} ${b.metadata.name}`}
                      disabled={action.busy}
                      onConfirm={() =>
                        void action.run(async () => {
                          await request(
                            "DELETE",
                            `rolebindings/${
                              encodeURIComponent(b.metadata.name)
                            }`,
                          );
                          bindings.reload();
                          return fill(t.deleted, { name: b.metadata.name });
                        })}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {bindings.data?.items.length === 0 && <p class="muted">{t.none}</p>}
      </section>
      {configured.length > 0 && (
        <section aria-labelledby="configured-title">
          <h2 id="configured-title">{t.configured}</h2>
          <table class="cards">
            <thead>
              <tr>
                <th>{t.role}</th>
                <th>{t.scope}</th>
                <th>{t.subjects}</th>
              </tr>
            </thead>
            <tbody>
              {configured.map((b, i) => (
                <tr key={i}>
                  <td data-label={t.role}>{b.role}</td>
                  <td data-label={t.scope}>{scopeLabel(b.scope)}</td>
                  <td data-label={t.subjects}>{subjectsLabel(b.subjects)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </>
  );
}

function NewBinding({ onMade }: { onMade: () => void }) {
  const t = strings.access.binding;
  const users = useApi<{ items: UserSummary[] }>(
    can("users", "list") ? "users" : undefined,
  );
  const [name, setName] = useState("");
  const [role, setRole] = useState("viewer");
  const [scopeKind, setScopeKind] = useState<"cluster" | "zone">("cluster");
  const [zone, setZone] = useState("");
  const [subjectKind, setSubjectKind] = useState<string>("User");
  const [subject, setSubject] = useState("");
  const action = useAction();
  const issues = issuesOf(action.error);
  const scope = scopeOf(scopeKind, zone);
  const suggested = bindingName(subject.trim(), role, scope);

  const submit = (e: Event) => {
    e.preventDefault();
    const chosen = name.trim() || suggested;
    void action.run(async () => {
      await request("POST", "rolebindings", {
        body: {
          name: chosen,
          role,
          scope,
          subjects: [{ kind: subjectKind, name: subject.trim() }],
        },
      });
      setName("");
      setSubject("");
      onMade();
      return fill(t.made, { name: chosen });
    });
  };

  return (
    <section class="panel form-panel" aria-labelledby="new-binding-title">
      <h2 id="new-binding-title">{t.new}</h2>
      <form class="form-grid" onSubmit={submit}>
        <SelectField
          label={t.subjectKind}
          name="subjectKind"
          value={subjectKind}
          onValue={setSubjectKind}
          options={SUBJECT_KINDS.map((k) => [k, t.kinds[k]] as const)}
        />
        <label>
          {t.subjectName}
          <input
            name="subject"
            required
            autocomplete="off"
            list={subjectKind === "User" ? "binding-users" : undefined}
            value={subject}
            aria-invalid={issues["subjects[0].name"] ? true : undefined}
            onInput={(e) => setSubject((e.target as HTMLInputElement).value)}
          />
          {issues["subjects[0].name"] && (
            <span class="field-error">{issues["subjects[0].name"]}</span>
          )}
        </label>
        <datalist id="binding-users">
          {users.data?.items.map((u) => <option key={u.name} value={u.name} />)}
        </datalist>
        <SelectField
          label={t.role}
          name="role"
          value={role}
          onValue={setRole}
          options={ROLES.map((r) => [r, r] as const)}
          error={issues.role}
        />
        <SelectField
          label={t.scopeKind}
          name="scopeKind"
          value={scopeKind}
          onValue={(v) => setScopeKind(v as "cluster" | "zone")}
          options={[["cluster", t.cluster], ["zone", t.zone]]}
        />
        {scopeKind === "zone" && (
          <Field
            label={t.zoneName}
            name="zone"
            value={zone}
            onValue={setZone}
            required
            autocomplete="off"
            error={issues["scope.name"]}
          />
        )}
        <Field
          label={t.name}
          name="name"
          value={name}
          onValue={setName}
          placeholder={suggested || t.nameHint}
          autocomplete="off"
          error={issues.name}
        />
        <div class="wide">
          <button type="submit" class="primary" disabled={action.busy}>
            {action.busy ? strings.access.creating : strings.access.create}
          </button>
        </div>
      </form>
      <Notice text={action.notice} />
      <ErrorBox error={action.error} />
    </section>
  );
}
