/**
 * The logged-in user's second factor: enrolment (POST /api/v1/auth/totp
 * gives a secret and its otpauth:// link, shown as text; a first code
 * confirms it) and removal, which needs the current password so that a
 * session alone cannot drop the second factor.
 */
import { useState } from "preact/hooks";
import { request } from "../../api.ts";
import { ErrorBox } from "../../components/error_box.tsx";
import { Field } from "../../components/field.tsx";
import { useApi } from "../../components/use_api.ts";
import { session } from "../../session.ts";
import { strings } from "../../strings.ts";
import { issuesOf, Notice, useAction } from "./form_parts.tsx";
import type { UserSummary } from "./users.tsx";

export function TotpPanel() {
  const t = strings.access.totp;
  const name = session.value?.user ?? "";
  const me = useApi<UserSummary>(`users/${encodeURIComponent(name)}`);
  const [enrolment, setEnrolment] = useState<{ secret: string; uri: string }>();
  const [code, setCode] = useState("");
  const [password, setPassword] = useState("");
  const action = useAction();
  const issues = issuesOf(action.error);
  const on = me.data?.totp === true;

  const start = () =>
    action.run(async () => {
      setEnrolment(
        await request<{ secret: string; uri: string }>("POST", "auth/totp"),
      );
    });
  const confirm = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await request("POST", "auth/totp/confirm", {
        body: { code: code.trim() },
      });
      setEnrolment(undefined);
      setCode("");
      me.reload();
      return t.confirmed;
    });
  };
  const remove = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await request("DELETE", `users/${encodeURIComponent(name)}/totp`, {
        body: { password },
      });
      setPassword("");
      me.reload();
      return t.removed;
    });
  };

  return (
    <section class="panel form-panel" aria-labelledby="totp-title">
      <h2 id="totp-title">{t.title}</h2>
      <ErrorBox error={me.error} onRetry={me.reload} />
      {me.data && <p data-testid="totp-state">{on ? t.on : t.off}</p>}
      <Notice text={action.notice} />
      {me.data && !on && enrolment === undefined && (
        <button
          type="button"
          disabled={action.busy}
          onClick={() => void start()}
        >
          {t.start}
        </button>
      )}
      {enrolment && (
        <form class="stack" onSubmit={confirm}>
          <p>{t.addIt}</p>
          <div>
            <span class="muted">{t.uri}</span>
            <code class="secret-text" data-testid="totp-uri">
              {enrolment.uri}
            </code>
          </div>
          <div>
            <span class="muted">{t.secret}</span>
            <code class="secret-text" data-testid="totp-secret">
              {enrolment.secret}
            </code>
          </div>
          <Field
            label={t.code}
            name="code"
            value={code}
            onValue={setCode}
            inputMode="numeric"
            autocomplete="one-time-code"
            pattern="[0-9 ]*"
            required
            error={issues.code}
          />
          <div class="toolbar">
            <button type="submit" class="primary" disabled={action.busy}>
              {t.confirm}
            </button>
            <button type="button" onClick={() => setEnrolment(undefined)}>
              {t.cancel}
            </button>
          </div>
        </form>
      )}
      {on && (
        <form class="stack" onSubmit={remove}>
          <p class="muted">{t.removeWhy}</p>
          <Field
            label={t.password}
            name="password"
            type="password"
            autocomplete="current-password"
            value={password}
            onValue={setPassword}
            required
            error={issues.password}
          />
          <div>
            <button type="submit" disabled={action.busy}>{t.remove}</button>
          </div>
        </form>
      )}
      {Object.keys(issues).length === 0 && <ErrorBox error={action.error} />}
    </section>
  );
}
