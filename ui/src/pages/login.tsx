/**
 * The login form, with the TOTP step: when the server says a code is due
 * (401 with totpRequired), the same form asks for it and sends all three.
 * Below it, one link per identity provider (GET /api/v1/auth/providers)
 * to its login, which comes back to the page the person was on; a login
 * the server refused comes back with its error (login_error.ts).
 */
import { useState } from "preact/hooks";
import { ApiError, apiUrl } from "../api.ts";
import { ErrorBox } from "../components/error_box.tsx";
import { Field } from "../components/field.tsx";
import { useApi } from "../components/use_api.ts";
import { takeLoginError } from "../login_error.ts";
import { login } from "../session.ts";
import { fill, strings } from "../strings.ts";

interface Providers {
  providers: { id: string; displayName: string }[];
}

export function LoginPage() {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [totp, setTotp] = useState("");
  const [needsTotp, setNeedsTotp] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  // Read once, at the first render after the provider sent the browser back.
  const [refused] = useState(() => {
    const e = takeLoginError();
    return e && new ApiError(0, e.key, e.message);
  });
  const providers = useApi<Providers>("auth/providers");
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
        <ErrorBox error={refused} />
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
        {(providers.data?.providers.length ?? 0) > 0 && (
          <nav class="providers" aria-label={t.providers}>
            <ul>
              {providers.data!.providers.map((p) => (
                <li key={p.id}>
                  <a
                    class="button"
                    href={apiUrl(
                      `auth/oidc/${encodeURIComponent(p.id)}/login`,
                      // Back to this page (its path as the browser sees it).
                      { next: location.pathname + location.search },
                    )}
                  >
                    {fill(t.withProvider, { name: p.displayName })}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        )}
      </div>
    </main>
  );
}
