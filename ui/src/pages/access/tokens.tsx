/**
 * API tokens: the caller's (everyone's for admins and auditors), a new one
 * narrowed to roles and scopes with a lifetime, and revoking one. A new
 * token's text is in the answer that made it only: it is shown once, here,
 * kept in this component's state and nowhere else, and gone when
 * dismissed.
 */
import { useState } from "preact/hooks";
import { request } from "../../api.ts";
import {
  grantLabel,
  ROLES,
  type Scope,
  scopeOf,
  TOKEN_LIFETIMES,
  type TokenLifetime,
} from "../../access_scope.ts";
import { ErrorBox } from "../../components/error_box.tsx";
import { Field } from "../../components/field.tsx";
import { useApi } from "../../components/use_api.ts";
import { time } from "../../format.ts";
import { session } from "../../session.ts";
import { fill, strings } from "../../strings.ts";
import {
  ConfirmButton,
  issuesOf,
  Notice,
  SelectField,
  useAction,
} from "./form_parts.tsx";

interface Token {
  id: string;
  owner: { kind: string; name: string };
  description: string;
  scopes: { role: string; scope?: Scope }[];
  expiresAt?: string;
  createdAt?: string;
  lastUsedAt?: string;
  lastUsedFrom?: string;
}

export function TokensTab() {
  const t = strings.access.token;
  const tokens = useApi<{ items: Token[] }>("tokens");
  const action = useAction();
  const [secret, setSecret] = useState<string>();
  const me = session.value;
  const mine = (token: Token) =>
    token.owner.kind === me?.kind && token.owner.name === me?.user;
  return (
    <>
      {secret !== undefined
        ? <Secret text={secret} onDone={() => setSecret(undefined)} />
        : (
          <NewToken
            onMade={(text) => {
              setSecret(text);
              tokens.reload();
            }}
          />
        )}
      <section aria-labelledby="tokens-title">
        <h2 id="tokens-title">{strings.access.tokens}</h2>
        <Notice text={action.notice} />
        <ErrorBox error={action.error} />
        <ErrorBox error={tokens.error} onRetry={tokens.reload} />
        <table class="cards" data-testid="tokens">
          <thead>
            <tr>
              <th>{t.id}</th>
              <th>{t.description}</th>
              <th>{t.owner}</th>
              <th>{t.scopes}</th>
              <th>{t.expires}</th>
              <th>{t.created}</th>
              <th>{t.lastUsed}</th>
              <th>{strings.access.actions}</th>
            </tr>
          </thead>
          <tbody>
            {tokens.data?.items.map((k) => (
              <tr key={k.id} data-token={k.id}>
                <td data-label={t.id}>
                  <code>{k.id}</code>
                </td>
                <td data-label={t.description}>{k.description || "—"}</td>
                <td data-label={t.owner}>
                  {mine(k)
                    ? strings.access.user.you
                    : `${k.owner.kind} ${k.owner.name}`}
                </td>
                <td data-label={t.scopes}>
                  {k.scopes.length === 0
                    ? t.fullRights
                    : k.scopes.map(grantLabel).join(", ")}
                </td>
                <td data-label={t.expires}>
                  {k.expiresAt ? time(k.expiresAt) : t.never}
                </td>
                <td data-label={t.created}>
                  {k.createdAt ? time(k.createdAt) : "—"}
                </td>
                <td data-label={t.lastUsed}>
                  {k.lastUsedAt
                    ? k.lastUsedFrom
                      ? fill(t.lastUsedFrom, {
                        at: time(k.lastUsedAt),
                        from: k.lastUsedFrom,
                      })
                      : time(k.lastUsedAt)
                    : t.notUsed}
                </td>
                <td data-label={strings.access.actions} class="actions">
                  <ConfirmButton
                    label={t.revoke}
                    name={`${t.revoke} ${k.id}`}
                    disabled={action.busy}
                    onConfirm={() =>
                      void action.run(async () => {
                        await request(
                          "DELETE",
                          `tokens/${encodeURIComponent(k.id)}`,
                        );
                        tokens.reload();
                        return fill(t.revoked, { id: k.id });
                      })}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {tokens.data?.items.length === 0 && <p class="muted">{t.none}</p>}
      </section>
    </>
  );
}

interface ScopeRow {
  /** "" asks for all of the owner's rights. */
  role: string;
  kind: "cluster" | "zone";
  zone: string;
}

function NewToken({ onMade }: { onMade: (text: string) => void }) {
  const t = strings.access.token;
  const [description, setDescription] = useState("");
  const [rows, setRows] = useState<ScopeRow[]>([
    { role: "viewer", kind: "cluster", zone: "" },
  ]);
  const [lifetime, setLifetime] = useState<TokenLifetime>("30d");
  const action = useAction();
  const issues = issuesOf(action.error);
  const setRow = (i: number, change: Partial<ScopeRow>) =>
    setRows(rows.map((r, j) => (j === i ? { ...r, ...change } : r)));

  const submit = (e: Event) => {
    e.preventDefault();
    const scopes = rows.filter((r) => r.role !== "").map((r) => ({
      role: r.role,
      scope: scopeOf(r.kind, r.zone),
    }));
    const seconds = TOKEN_LIFETIMES[lifetime];
    void action.run(async () => {
      const made = await request<{ token: string }>("POST", "tokens", {
        body: {
          ...(description.trim() !== "" &&
            { description: description.trim() }),
          ...(scopes.length > 0 && { scopes }),
          ...(seconds > 0 && { expiresInSeconds: seconds }),
        },
      });
      setDescription("");
      onMade(made.token);
    });
  };

  return (
    <section class="panel form-panel" aria-labelledby="new-token-title">
      <h2 id="new-token-title">{t.new}</h2>
      <form class="form-grid" onSubmit={submit}>
        <Field
          label={t.description}
          name="description"
          value={description}
          onValue={setDescription}
          autocomplete="off"
          error={issues.description}
        />
        <SelectField
          label={t.lifetime}
          name="lifetime"
          value={lifetime}
          onValue={(v) => setLifetime(v as TokenLifetime)}
          options={(Object.keys(TOKEN_LIFETIMES) as TokenLifetime[]).map((
            k,
          ) => [k, t.lifetimes[k]] as const)}
          error={issues.expiresInSeconds}
        />
        {rows.map((row, i) => (
          <fieldset class="wide scope-row" key={i}>
            <legend>{fill(t.scope, { n: i + 1 })}</legend>
            <SelectField
              label={t.role}
              name={`role-${i}`}
              value={row.role}
              onValue={(role) => setRow(i, { role })}
              options={[
                ["", t.ownerRights],
                ...ROLES.map((r) => [r, r] as const),
              ]}
              error={issues[`scopes[${i}].role`]}
            />
            {row.role !== "" && (
              <SelectField
                label={t.scopeKind}
                name={`scope-${i}`}
                value={row.kind}
                onValue={(kind) =>
                  setRow(i, { kind: kind as "cluster" | "zone" })}
                options={[["cluster", t.cluster], ["zone", t.zone]]}
              />
            )}
            {row.role !== "" && row.kind === "zone" && (
              <Field
                label={t.zoneName}
                name={`zone-${i}`}
                value={row.zone}
                onValue={(zone) => setRow(i, { zone })}
                required
                autocomplete="off"
                error={issues[`scopes[${i}].scope.name`]}
              />
            )}
            {rows.length > 1 && (
              <button
                type="button"
                onClick={() => setRows(rows.filter((_, j) => j !== i))}
              >
                {t.removeScope}
              </button>
            )}
          </fieldset>
        ))}
        <div class="wide toolbar">
          <button
            type="button"
            onClick={() =>
              setRows([...rows, { role: "viewer", kind: "cluster", zone: "" }])}
          >
            {t.addScope}
          </button>
          <button type="submit" class="primary" disabled={action.busy}>
            {action.busy ? strings.access.creating : strings.access.create}
          </button>
        </div>
      </form>
      <ErrorBox error={action.error} />
    </section>
  );
}

/** The new token's text, once, with a copy button. */
function Secret({ text, onDone }: { text: string; onDone: () => void }) {
  const t = strings.access.token;
  const [copied, setCopied] = useState<string>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(t.copied);
    } catch {
      setCopied(t.copyFailed);
    }
  };
  return (
    <section
      class="panel secret"
      aria-labelledby="secret-title"
      data-testid="token-secret"
    >
      <h2 id="secret-title">{t.secretTitle}</h2>
      <p class="warning" role="alert">{t.secretWarning}</p>
      <label>
        {t.secretLabel}
        <input
          readOnly
          class="secret-text"
          value={text}
          spellcheck={false}
          autocomplete="off"
          onFocus={(e) => (e.target as HTMLInputElement).select()}
        />
      </label>
      <div class="toolbar">
        <button type="button" onClick={() => void copy()}>{t.copy}</button>
        <button type="button" class="primary" onClick={onDone}>{t.done}</button>
        {copied && <span role="status">{copied}</span>}
      </div>
    </section>
  );
}
