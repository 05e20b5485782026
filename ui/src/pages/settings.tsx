/**
 * The settings page: the blocking switch, then every key of kudurru.yaml
 * by section as GET /api/v1/settings lists it. The keys the API may change
 * are a form; Save sends every change as one merge patch (PATCH
 * /api/v1/settings) conditional on the version read, and says which keys
 * applied at once and which wait for a restart. The search and the section
 * are in the page's address.
 */
import "./settings.css";
import { useState } from "preact/hooks";
import { ApiError, request } from "../api.ts";
import { ErrorBox } from "../components/error_box.tsx";
import { useApi } from "../components/use_api.ts";
import { href, navigate, route } from "../router.ts";
import { can } from "../session.ts";
import {
  type Draft,
  filterSettings,
  groupBySection,
  inputKind,
  issuesByKey,
  mergePatchOf,
  parseDraft,
  type SettingsPatchResult,
  type SettingsView,
} from "../settings_form.ts";
import { fill, strings } from "../strings.ts";
import { BlockingPanel } from "./settings/blocking.tsx";
import { SettingRow } from "./settings/setting_row.tsx";

export function SettingsPage() {
  const t = strings.settings;
  return (
    <div class="settings-page">
      <h1>{t.title}</h1>
      {can("blocking", "get") && <BlockingPanel />}
      <SettingsForm />
    </div>
  );
}

/** Drafts by key: null gives the key back to the file. */
type Drafts = Record<string, Draft | null>;

function SettingsForm() {
  const t = strings.settings;
  const loaded = useApi<SettingsView>("settings");
  const params = route.value.params;
  const query = params.get("q") ?? "";
  const only = params.get("section") ?? "";
  const [drafts, setDrafts] = useState<Drafts>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [result, setResult] = useState<SettingsPatchResult>();
  const [busy, setBusy] = useState(false);
  const mayChange = can("settings", "update");
  const view = loaded.data;

  const setQuery = (next: { q?: string; section?: string }) =>
    navigate(
      href("settings", { q: query, section: only, ...next }),
      { replace: true },
    );

  const onDraft = (key: string, draft: Draft | null | undefined) => {
    setResult(undefined);
    setDrafts((all) => {
      const next = { ...all };
      if (draft === undefined) delete next[key];
      else next[key] = draft;
      return next;
    });
    setErrors(({ [key]: _gone, ...rest }) => rest);
  };

  const save = async () => {
    if (view === undefined) return;
    const byKey = new Map(view.settings.map((s) => [s.key, s]));
    const changes = new Map<string, unknown>();
    const problems: Record<string, string> = {};
    for (const [key, draft] of Object.entries(drafts)) {
      if (draft === null) {
        changes.set(key, null);
        continue;
      }
      const parsed = parseDraft(draft, inputKind(byKey.get(key)!));
      if ("error" in parsed) problems[key] = parsed.error;
      else changes.set(key, parsed.value);
    }
    setErrors(problems);
    setError(undefined);
    setResult(undefined);
    if (Object.keys(problems).length > 0) return;
    setBusy(true);
    try {
      const answer = await request<SettingsPatchResult>("PATCH", "settings", {
        body: mergePatchOf(changes),
        contentType: "application/merge-patch+json",
        ...(view.resourceVersion !== undefined &&
          { ifMatch: view.resourceVersion }),
      });
      setResult(answer);
      setDrafts({});
      loaded.reload();
    } catch (err) {
      const issues = err instanceof ApiError
        ? err.details?.issues as { path: string; message: string }[]
        : undefined;
      if (Array.isArray(issues)) {
        const sorted = issuesByKey(issues, view.settings.map((s) => s.key));
        setErrors(sorted.byKey);
        setError(
          sorted.rest.length > 0 || Object.keys(sorted.byKey).length === 0
            ? err
            : undefined,
        );
      } else {
        setError(err);
      }
    } finally {
      setBusy(false);
    }
  };

  if (view === undefined) {
    return loaded.error
      ? <ErrorBox error={loaded.error} onRetry={loaded.reload} />
      : <p aria-busy="true">{strings.app.loading}</p>;
  }

  const all = groupBySection(view.settings, view.sections);
  const shown = groupBySection(
    filterSettings(view.settings, query).filter((s) =>
      only === "" || s.key.split(".")[0] === only
    ),
    view.sections,
  );
  const count = Object.keys(drafts).length;
  const conflict = error instanceof ApiError && error.key === "conflict";

  return (
    <>
      <form
        class="toolbar"
        role="search"
        onSubmit={(e) => e.preventDefault()}
      >
        <label>
          {t.find}
          <input
            type="search"
            name="q"
            value={query}
            placeholder={t.findHint}
            onInput={(e) =>
              setQuery({ q: (e.target as HTMLInputElement).value })}
          />
        </label>
        <div class="select-field">
          <label for="settings-section">{t.sections}</label>
          <select
            id="settings-section"
            name="section"
            value={only}
            onChange={(e) =>
              setQuery({ section: (e.target as HTMLSelectElement).value })}
          >
            <option value="">{t.allSections}</option>
            {all.map((s) => (
              <option key={s.name} value={s.name}>{s.name}</option>
            ))}
          </select>
        </div>
      </form>
      {result && <SaveResult result={result} />}
      <ErrorBox error={loaded.error} onRetry={loaded.reload} />
      {shown.length === 0 && <p class="muted">{t.none}</p>}
      <form
        class="settings"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        {shown.map((section) => (
          <section
            key={section.name}
            class="panel settings-section"
            aria-labelledby={`section-${section.name}`}
          >
            <h2 id={`section-${section.name}`}>{section.name}</h2>
            {section.help && <p class="muted">{section.help}</p>}
            {section.settings.map((s) => (
              <SettingRow
                key={s.key}
                setting={s}
                mayChange={mayChange}
                draft={drafts[s.key]}
                onDraft={(d) => onDraft(s.key, d)}
                error={errors[s.key]}
              />
            ))}
          </section>
        ))}
        {(count > 0 || error !== undefined) && (
          <div
            class="savebar"
            role="region"
            aria-label={fill(t.changes, { count })}
          >
            <span>{fill(t.changes, { count })}</span>
            <button
              type="submit"
              class="primary"
              disabled={busy || count === 0}
            >
              {busy ? t.saving : t.save}
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() => {
                setDrafts({});
                setErrors({});
                setError(undefined);
              }}
            >
              {t.discard}
            </button>
            {conflict
              ? (
                <div class="error" role="alert">
                  {t.conflict}{" "}
                  <button type="button" onClick={loaded.reload}>
                    {t.reload}
                  </button>
                </div>
              )
              : <ErrorBox error={error} />}
          </div>
        )}
      </form>
    </>
  );
}

function SaveResult({ result }: { result: SettingsPatchResult }) {
  const t = strings.settings;
  const nothing = result.applied.length === 0 &&
    result.restartRequired.length === 0;
  return (
    <div class="panel notice" role="status" data-testid="settings-saved">
      <strong>{t.saved}</strong> {nothing && t.nothingChanged}
      {result.applied.length > 0 &&
        ` ${fill(t.appliedNow, { keys: result.applied.join(", ") })}`}
      {result.restartRequired.length > 0 && (
        <strong class="restart">
          {` ${
            fill(t.restartRequired, { keys: result.restartRequired.join(", ") })
          }`}
        </strong>
      )}
    </div>
  );
}
