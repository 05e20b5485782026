/**
 * The caller's own sessions: log out everywhere (DELETE
 * /api/v1/auth/sessions), which ends this session too.
 */
import { request } from "../../api.ts";
import { ErrorBox } from "../../components/error_box.tsx";
import { loadStatus } from "../../session.ts";
import { strings } from "../../strings.ts";
import { useAction } from "./form_parts.tsx";

export function SessionsPanel() {
  const t = strings.access.sessions;
  const action = useAction();
  return (
    <section class="panel form-panel" aria-labelledby="sessions-title">
      <h2 id="sessions-title">{t.title}</h2>
      <p>{t.why}</p>
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
      <ErrorBox error={action.error} />
    </section>
  );
}
