/**
 * Adds a BlockList with one source: a URL (fetched by the leader, again
 * every refreshInterval) or rules typed in. The name follows the URL until
 * it is typed.
 */
import { useState } from "preact/hooks";
import { request } from "../../api.ts";
import { Field } from "../../components/field.tsx";
import {
  type BlockList,
  collectionPath,
  DEFAULT_NAMESPACE,
  fieldErrors,
  issuesOf,
  nameProblem,
} from "../../lists_objects.ts";
import {
  nameFromUrl,
  newBlockList,
  normalizeInline,
} from "../../lists_sources.ts";
import { fill, strings } from "../../strings.ts";
import { useAction, WriteError } from "./object_parts.tsx";

const FIELDS = [
  "metadata.name",
  "metadata.namespace",
  "spec.mode",
  "spec.sources[0].url",
  "spec.sources[0].inline",
  "spec.sources",
] as const;

interface Draft {
  namespace: string;
  name: string;
  /** The name was typed, so the URL no longer suggests it. */
  named: boolean;
  mode: "block" | "allow";
  from: "url" | "inline";
  url: string;
  inline: string;
}

const EMPTY: Draft = {
  namespace: DEFAULT_NAMESPACE,
  name: "",
  named: false,
  mode: "block",
  from: "url",
  url: "",
  inline: "",
};

export function AddList({ onAdded }: { onAdded: () => void }) {
  const t = strings.lists;
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [local, setLocal] = useState<Record<string, string>>({});
  const [done, setDone] = useState("");
  const action = useAction();
  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });
  const { byField, rest } = fieldErrors(issuesOf(action.error), FIELDS);
  const errors = { ...byField, ...local };
  const sourceError = draft.from === "url"
    ? errors["spec.sources[0].url"] ?? errors["spec.sources"]
    : errors["spec.sources[0].inline"] ?? errors["spec.sources"];

  const submit = async () => {
    setDone("");
    const problems: Record<string, string> = {};
    const nameIssue = nameProblem(draft.name.trim());
    if (nameIssue) problems["metadata.name"] = nameIssue;
    if (draft.from === "url" && draft.url.trim() === "") {
      problems["spec.sources[0].url"] = t.urlRequired;
    }
    if (draft.from === "inline" && normalizeInline(draft.inline) === "") {
      problems["spec.sources[0].inline"] = t.rulesRequired;
    }
    setLocal(problems);
    if (Object.keys(problems).length > 0) return;
    const list = newBlockList({
      namespace: draft.namespace,
      name: draft.name,
      mode: draft.mode,
      ...(draft.from === "url" ? { url: draft.url } : { inline: draft.inline }),
    });
    const made = await action.run(() =>
      request<BlockList>(
        "POST",
        collectionPath("blocklists", list.metadata.namespace!),
        { body: list },
      )
    );
    if (made) {
      setDraft(EMPTY);
      setDone(fill(t.added, { name: made.metadata.name }));
      onAdded();
    }
  };

  return (
    <section class="panel" aria-labelledby="add-list-heading">
      <h2 id="add-list-heading">{t.add}</h2>
      <form
        class="stack"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <fieldset class="lists-choice">
          <legend>{t.from}</legend>
          {(["url", "inline"] as const).map((from) => (
            <label key={from} class="lists-inline">
              <input
                type="radio"
                name="from"
                value={from}
                checked={draft.from === from}
                onChange={() =>
                  set({ from })}
              />
              {from === "url" ? t.fromUrl : t.fromText}
            </label>
          ))}
        </fieldset>
        {draft.from === "url"
          ? (
            <Field
              label={t.url}
              type="url"
              name="url"
              placeholder="https://example.org/hosts.txt"
              value={draft.url}
              error={sourceError}
              onValue={(url) =>
                set({
                  url,
                  ...(!draft.named && { name: nameFromUrl(url) }),
                })}
            />
          )
          : (
            <label>
              {t.rules}
              <textarea
                class="lists-rules"
                name="inline"
                rows={4}
                placeholder={t.rulesHint}
                value={draft.inline}
                aria-invalid={sourceError ? true : undefined}
                onInput={(e) =>
                  set({ inline: (e.target as HTMLTextAreaElement).value })}
              />
              {sourceError && <span class="field-error">{sourceError}</span>}
            </label>
          )}
        <div class="lists-row">
          <Field
            label={t.name}
            name="name"
            placeholder={t.nameHint}
            value={draft.name}
            error={errors["metadata.name"]}
            onValue={(name) => set({ name, named: name !== "" })}
          />
          <Field
            label={t.namespace}
            name="namespace"
            value={draft.namespace}
            error={errors["metadata.namespace"]}
            onValue={(namespace) => set({ namespace })}
          />
          <label>
            {t.mode}
            <select
              name="mode"
              value={draft.mode}
              onChange={(e) =>
                set({
                  mode: (e.target as HTMLSelectElement).value as Draft["mode"],
                })}
            >
              <option value="block">{t.modes.block}</option>
              <option value="allow">{t.modes.allow}</option>
            </select>
            {errors["spec.mode"] && (
              <span class="field-error">{errors["spec.mode"]}</span>
            )}
          </label>
        </div>
        <div>
          <button type="submit" class="primary" disabled={action.busy}>
            {t.addSubmit}
          </button>
        </div>
        <WriteError error={action.error} issues={rest} />
        {done && <p role="status">{done}</p>}
      </form>
    </section>
  );
}
