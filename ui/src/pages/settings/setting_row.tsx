/**
 * One settings key: its name, help, value (an input by type when it may
 * change, else the value and why it may not), default, where the value
 * comes from, and whether a change applies at once or after a restart.
 */
import {
  type Draft,
  draftOf,
  inputKind,
  lockOf,
  originOf,
  type Setting,
  shownValue,
} from "../../settings_form.ts";
import { fill, strings } from "../../strings.ts";

export interface SettingRowProps {
  setting: Setting;
  /** The user may change settings at all. */
  mayChange: boolean;
  /** The draft, null for "the file's value", undefined when unchanged. */
  draft: Draft | null | undefined;
  onDraft: (draft: Draft | null | undefined) => void;
  error?: string | undefined;
}

export function SettingRow(
  { setting: s, mayChange, draft, onDraft, error }: SettingRowProps,
) {
  const t = strings.settings;
  const kind = inputKind(s);
  const lock = lockOf(s);
  const editable = mayChange && lock === undefined;
  const id = `setting-${s.key}`;
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const current = draftOf(s.value, kind);
  const value = draft === undefined || draft === null ? current : draft;
  const set = (next: Draft) => onDraft(next === current ? undefined : next);
  const described = [s.help ? helpId : "", error ? errorId : ""]
    .filter((x) => x !== "").join(" ") || undefined;
  const common = {
    id,
    name: s.key,
    disabled: draft === null,
    "aria-describedby": described,
    "aria-invalid": error ? true : undefined,
  };

  let input;
  if (!editable) {
    input = <code class="setting-shown">{shownValue(s.value)}</code>;
  } else if (kind === "checkbox") {
    input = (
      <input
        {...common}
        type="checkbox"
        checked={value === true}
        onChange={(e) => set((e.target as HTMLInputElement).checked)}
      />
    );
  } else if (kind === "select") {
    input = (
      <select
        {...common}
        value={String(value)}
        onChange={(e) => set((e.target as HTMLSelectElement).value)}
      >
        {s.allowed!.map((v) => <option key={v} value={v}>{v}</option>)}
      </select>
    );
  } else if (kind === "json") {
    const lines = String(value).split("\n").length;
    input = (
      <textarea
        {...common}
        rows={Math.min(12, Math.max(2, lines))}
        spellcheck={false}
        value={String(value)}
        onInput={(e) => set((e.target as HTMLTextAreaElement).value)}
      />
    );
  } else {
    input = (
      <input
        {...common}
        type="text"
        inputMode={kind === "number" ? "decimal" : undefined}
        spellcheck={false}
        value={String(value)}
        onInput={(e) => set((e.target as HTMLInputElement).value)}
      />
    );
  }

  const shownDefault = s.defaultText ??
    ("default" in s ? shownValue(s.default) : undefined);
  const changed = draft !== undefined;

  return (
    <div
      class={`setting${changed ? " changed" : ""}`}
      data-key={s.key}
      data-testid={`setting-${s.key}`}
    >
      <div class="setting-name">
        {editable
          ? (
            <label for={id}>
              <code>{s.key}</code>
            </label>
          )
          : <code class="setting-key">{s.key}</code>}
        {!s.hostOnly && (
          <span class={`tag${s.restartRequired ? " restart" : ""}`}>
            {s.restartRequired ? t.restart : t.live}
          </span>
        )}
        {s.pendingRestart && <span class="tag pending">{t.pendingRestart}
        </span>}
      </div>
      {s.help && <p class="muted setting-help" id={helpId}>{s.help}</p>}
      <div class="setting-value">
        {input}
        {editable && s.source === "api" && draft !== null && (
          <button
            type="button"
            class="link"
            onClick={() => onDraft(null)}
          >
            {t.useFile}
          </button>
        )}
        {draft === null && (
          <>
            <span class="muted">{t.willUseFile}</span>
            <button
              type="button"
              class="link"
              onClick={() => onDraft(undefined)}
            >
              {t.undo}
            </button>
          </>
        )}
      </div>
      {error && <p class="field-error" id={errorId}>{error}</p>}
      {lock && (
        <p class="setting-lock">
          {lock === "host"
            ? t.lockedHost
            : fill(lock === "env" ? t.lockedEnv : t.lockedEnvAlways, {
              env: s.env,
            })}
        </p>
      )}
      <p class="muted setting-meta">
        {shownDefault !== undefined && (
          <span>{fill(t.defaultIs, { value: shownDefault })}</span>
        )}
        <span>{fill(t.from, { origin: t.origins[originOf(s)] })}</span>
      </p>
    </div>
  );
}
