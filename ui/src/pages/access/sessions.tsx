/**
 * The caller's own sessions (GET /api/v1/account/sessions): where each was
 * opened from, when, when last seen and which one is this; logging one
 * out, every other one, or all of them, this one too (DELETE
 * /api/v1/auth/sessions).
 */
import { request } from "../../api.ts";
import { ErrorBox } from "../../components/error_box.tsx";
import { useApi } from "../../components/use_api.ts";
import { time } from "../../format.ts";
import { loadStatus } from "../../session.ts";
import { fill, strings } from "../../strings.ts";
import { ConfirmButton, Notice, useAction } from "./form_parts.tsx";

interface Session {
  id: string;
  created: string;
  lastSeen: string;
  address: string;
  userAgent?: string;
  current: boolean;
}

export function SessionsPanel() {
  const t = strings.access.sessions;
  const sessions = useApi<{ items: Session[] }>("account/sessions");
  const action = useAction();
  const items = sessions.data?.items ?? [];
  const others = items.filter((s) => !s.current).length;
  const end = (s: Session) =>
    void action.run(async () => {
      await request("DELETE", `account/sessions/${encodeURIComponent(s.id)}`);
      // Logging this session out logs the caller out: the login shows.
      if (s.current) await loadStatus();
      sessions.reload();
      return t.ended;
    });
  return (
    <section class="panel form-panel" aria-labelledby="sessions-title">
      <h2 id="sessions-title">{t.title}</h2>
      <Notice text={action.notice} />
      <ErrorBox error={action.error} />
      <ErrorBox error={sessions.error} onRetry={sessions.reload} />
      <table class="cards" data-testid="sessions">
        <thead>
          <tr>
            <th>{t.from}</th>
            <th>{t.created}</th>
            <th>{t.lastSeen}</th>
            <th>{strings.access.actions}</th>
          </tr>
        </thead>
        <tbody>
          {items.map((s) => (
            <tr key={s.id} data-session={s.id}>
              <td data-label={t.from}>
                {s.address}
                {s.userAgent && (
                  <>
                    <br />
                    <span class="muted user-agent">{s.userAgent}</span>
                  </>
                )}
                {s.current && (
                  <>
                    <br />
                    <strong>{t.thisOne}</strong>
                  </>
                )}
              </td>
              <td data-label={t.created}>{time(s.created)}</td>
              <td data-label={t.lastSeen}>{time(s.lastSeen)}</td>
              <td data-label={strings.access.actions} class="actions">
                <ConfirmButton
                  label={t.end}
                  name={fill(t.endName, {
                    address: s.address,
                    created: time(s.created),
                  })}
                  disabled={action.busy}
                  onConfirm={() => end(s)}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {sessions.data && items.length === 0 && <p class="muted">{t.none}</p>}
      <div class="toolbar">
        {others > 0 && (
          <button
            type="button"
            disabled={action.busy}
            onClick={() =>
              void action.run(async () => {
                const { ended } = await request<{ ended: number }>(
                  "DELETE",
                  "account/sessions",
                );
                sessions.reload();
                return fill(t.endedOthers, { n: ended });
              })}
          >
            {t.endOthers}
          </button>
        )}
        <button
          type="button"
          disabled={action.busy}
          onClick={() =>
            void action.run(async () => {
              await request("DELETE", "auth/sessions");
              // The cookie is gone: the status says so and the login shows.
              await loadStatus();
            })}
        >
          {t.logoutEverywhere}
        </button>
      </div>
      <p class="muted">{t.why}</p>
    </section>
  );
}
