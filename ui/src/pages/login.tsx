/**
 * The login form, with the TOTP step: when the server says a code is due
 * (401 with totpRequired), the same form asks for it and sends all three.
 */
import { useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { ErrorBox } from "../components/error_box.tsx";
import { Field } from "../components/field.tsx";
import { login } from "../session.ts";
import { strings } from "../strings.ts";

export function LoginPage() {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [totp, setTotp] = useState("");
  const [needsTotp, setNeedsTotp] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const t = strings.login;

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await login(username, password, needsTotp ? totp : undefined);
    } catch (err) {
      if (err instanceof ApiError && err.details?.totpRequired === true) {
        setNeedsTotp(true);
      } else {
        setError(err);
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login">
      <div class="panel">
        <h1>{t.title}</h1>
        <form class="stack" onSubmit={submit}>
          <Field
            label={t.username}
            name="username"
            autocomplete="username"
            required
            value={username}
            onValue={setUsername}
          />
          <Field
            label={t.password}
            name="password"
            type="password"
            autocomplete="current-password"
            required
            value={password}
            onValue={setPassword}
          />
          {needsTotp && (
            <>
              <p role="status">{t.totpNeeded}</p>
              <Field
                label={t.totp}
                name="totp"
                inputMode="numeric"
                autocomplete="one-time-code"
                pattern="[0-9]{6}"
                required
                autoFocus
                value={totp}
                onValue={setTotp}
              />
            </>
          )}
          <ErrorBox error={error} />
          <button type="submit" class="primary" disabled={busy}>
            {busy ? t.busy : t.submit}
          </button>
        </form>
      </div>
    </main>
  );
}
