/**
 * The first-run (or after an admin's reset) password change: until it is
 * done the API refuses everything else, so the UI shows nothing else.
 */
import { useState } from "preact/hooks";
import { ErrorBox } from "../components/error_box.tsx";
import { Field } from "../components/field.tsx";
import { changePassword, logout } from "../session.ts";
import { strings } from "../strings.ts";

export function PasswordPage() {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [repeat, setRepeat] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const t = strings.password;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (next !== repeat) {
      setError(new Error(t.mismatch));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await changePassword(current, next);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const field = (
    label: string,
    value: string,
    onValue: (v: string) => void,
    autocomplete: string,
  ) => (
    <Field
      label={label}
      type="password"
      required
      autocomplete={autocomplete}
      value={value}
      onValue={onValue}
    />
  );

  return (
    <main class="login">
      <div class="panel">
        <h1>{t.title}</h1>
        <p>{t.why}</p>
        <form class="stack" onSubmit={submit}>
          {field(t.current, current, setCurrent, "current-password")}
          {field(t.next, next, setNext, "new-password")}
          {field(t.repeat, repeat, setRepeat, "new-password")}
          <ErrorBox error={error} />
          <button type="submit" class="primary" disabled={busy}>
            {t.submit}
          </button>
          <button type="button" onClick={() => void logout()}>
            {strings.app.logout}
          </button>
        </form>
      </div>
    </main>
  );
}
