/**
 * What the access page's forms share: the API's field errors by field, a
 * button that asks again before it does something that cannot be undone,
 * and the line that says what the last action did.
 */
import { useId, useState } from "preact/hooks";
import { ApiError } from "../../api.ts";
import { strings } from "../../strings.ts";

/** The `issues` of an API error, by field path. */
export function issuesOf(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError)) return {};
  const issues = error.details?.issues;
  if (!Array.isArray(issues)) return {};
  const out: Record<string, string> = {};
  for (const issue of issues as { path?: unknown; message?: unknown }[]) {
    if (typeof issue.path === "string" && typeof issue.message === "string") {
      out[issue.path] ??= issue.message;
    }
  }
  return out;
}

/** A button that shows "Sure? Yes / Cancel" before it acts. */
export function ConfirmButton(
  { label, onConfirm, disabled, name }: {
    label: string;
    onConfirm: () => void;
    disabled?: boolean;
    /** What it acts on, for screen readers ("Delete bob"). */
    name?: string;
  },
) {
  const t = strings.access;
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button
        type="button"
        disabled={disabled}
        aria-label={name}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={name ?? label}>
      <span>{t.confirm}</span>
      <button
        type="button"
        class="danger"
        autoFocus
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {t.yes}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        {t.cancel}
      </button>
    </span>
  );
}

/** What the last action did, read out by screen readers. */
export function Notice({ text }: { text: string | undefined }) {
  return text ? <p class="notice-line" role="status">{text}</p> : null;
}

/**
 * Runs one action at a time: `busy` while it runs, its error or its
 * notice after.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  const run = async (
    action: () => Promise<string | undefined | void>,
  ): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    try {
      const said = await action();
      if (typeof said === "string") setNotice(said);
      return true;
    } catch (err) {
      setError(err);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, notice, run, setError };
}

/**
 * A labelled select. The label names it with `for`: wrapped around the
 * select, its text would take in every option's.
 */
export function SelectField(
  { label, name, value, onValue, options, error }: {
    label: string;
    name: string;
    value: string;
    onValue: (value: string) => void;
    /** [value, text] */
    options: readonly (readonly [string, string])[];
    error?: string | undefined;
  },
) {
  const id = useId();
  return (
    <div class="select-field">
      <label for={id}>{label}</label>
      <select
        id={id}
        name={name}
        value={value}
        aria-invalid={error ? true : undefined}
        onChange={(e) => onValue((e.target as HTMLSelectElement).value)}
      >
        {options.map(([v, text]) => <option key={v} value={v}>{text}</option>)}
      </select>
      {error && <span class="field-error">{error}</span>}
    </div>
  );
}
