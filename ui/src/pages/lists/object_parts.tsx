/**
 * What the block list, group and policy pages share: who manages an
 * object, a write's busy state and error, the error with the issues no
 * field showed, and a delete that asks first.
 */
import { useState } from "preact/hooks";
import { ErrorBox } from "../../components/error_box.tsx";
import { type Issue, type KObject, ownership } from "../../lists_objects.ts";
import { fill, strings } from "../../strings.ts";

/** "Managed by file …" (read-only) or the first start's note. */
export function OwnerNote({ obj }: { obj: KObject<unknown> }) {
  const { note } = ownership(obj);
  return note ? <p class="muted lists-owner">{note}</p> : null;
}

export interface Action {
  busy: boolean;
  error: unknown;
  clear: () => void;
  /** Runs a write; resolves to its result, or undefined when it failed. */
  run: <T>(write: () => Promise<T>) => Promise<T | undefined>;
}

/** One write at a time, with the error of the last one. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  return {
    busy,
    error,
    clear: () => setError(undefined),
    async run<T>(write: () => Promise<T>): Promise<T | undefined> {
      setBusy(true);
      setError(undefined);
      try {
        return await write();
      } catch (e) {
        setError(e);
        return undefined;
      } finally {
        setBusy(false);
      }
    },
  };
}

/** The API's error (message and hint), then the issues no field showed. */
export function WriteError(
  { error, issues = [], onRetry }: {
    error: unknown;
    issues?: Issue[];
    onRetry?: () => void;
  },
) {
  return (
    <>
      <ErrorBox error={error} {...(onRetry && { onRetry })} />
      {issues.length > 0 && (
        <ul class="error lists-issues" role="alert">
          {issues.map((i) => (
            <li key={`${i.path}:${i.message}`}>
              {i.path
                ? fill(strings.lists.issue, {
                  path: i.path,
                  message: i.message,
                })
                : i.message}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** A delete button that asks "Delete …?" in place before it deletes. */
export function DeleteButton(
  { label, name, busy, onDelete }: {
    label: string;
    name: string;
    busy: boolean;
    onDelete: () => void;
  },
) {
  const t = strings.lists;
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button
        type="button"
        disabled={busy}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    );
  }
  return (
    <span
      class="lists-confirm"
      role="group"
      aria-label={fill(t.confirmDelete, { name })}
    >
      <span>{fill(t.confirmDelete, { name })}</span>
      <button
        type="button"
        class="lists-danger"
        disabled={busy}
        onClick={() => {
          setAsking(false);
          onDelete();
        }}
      >
        {t.confirm}
      </button>
      <button type="button" onClick={() => setAsking(false)}>{t.cancel}</button>
    </span>
  );
}
