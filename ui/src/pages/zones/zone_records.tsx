/**
 * A zone's records: the flat list (GET …/records, keyset pages of 100,
 * narrowed by name and type from the address), adding one (with a hint of
 * what the data of its type looks like, and the API's validation messages
 * under the fields) and removing one. Records a file or the first start
 * declares are theirs: they are shown, not removed here.
 */
import { useEffect, useState } from "preact/hooks";
import { get, request } from "../../api.ts";
import { ErrorBox } from "../../components/error_box.tsx";
import { href, navigate, route } from "../../router.ts";
import { can } from "../../session.ts";
import { fill, strings } from "../../strings.ts";
import { dataExample, dataHint, RECORD_TYPES } from "../../zones_hints.ts";
import { boxError, fieldErrors, recordField } from "../../zones_issues.ts";
import {
  apiManaged,
  managerLabel,
  type Problem,
  recordBody,
  type RecordForm,
  type RecordRow,
  removeBody,
  type Zone,
} from "../../zones_model.ts";

const PAGE = 100;

interface RecordPage {
  items: RecordRow[];
  continue?: string;
}

export interface RecordsPanelProps {
  zone: Zone;
  /** Changes when the records changed (here or by an import). */
  version: number;
  changed: () => void;
}

export function RecordsPanel({ zone, version, changed }: RecordsPanelProps) {
  const t = strings.zones;
  const params = route.value.params;
  const filter = {
    name: params.get("name") ?? undefined,
    type: params.get("type") ?? undefined,
  };
  const path = `dnszones/${encodeURIComponent(zone.metadata.name)}/records`;
  const [rows, setRows] = useState<RecordRow[]>([]);
  const [next, setNext] = useState<string | undefined>();
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<unknown>();
  // A remove that failed (managed_by, not found): no retry of the list.
  const [removeError, setRemoveError] = useState<unknown>();
  const [said, setSaid] = useState<string | undefined>();
  const [round, setRound] = useState(0);

  useEffect(() => {
    const abort = new AbortController();
    get<RecordPage>(path, { ...filter, limit: PAGE }, abort.signal).then(
      (page) => {
        setError(undefined);
        setRows(page.items);
        setNext(page.continue);
        setLoaded(true);
      },
      (err) => !abort.signal.aborted && setError(err),
    );
    return () => abort.abort();
  }, [path, filter.name, filter.type, version, round]);

  const more = async () => {
    try {
      const page = await get<RecordPage>(path, {
        ...filter,
        limit: PAGE,
        continue: next,
      });
      setRows((current) => [...current, ...page.items]);
      setNext(page.continue);
    } catch (err) {
      setError(err);
    }
  };

  const remove = async (row: RecordRow) => {
    setRemoveError(undefined);
    setSaid(undefined);
    try {
      await request("DELETE", path, { body: removeBody(row) });
      setSaid(fill(t.removed, recordWords(row)));
      changed();
    } catch (err) {
      setRemoveError(err);
    }
  };

  const mayRemove = can("dnsrecordsets", "delete", zone.metadata.name);
  return (
    <section class="panel zone-records" aria-labelledby="zone-records">
      <h2 id="zone-records">{t.recordsTitle}</h2>
      <datalist id="zone-record-types">
        {RECORD_TYPES.map((type) => <option key={type} value={type} />)}
      </datalist>
      {can("dnsrecordsets", "create", zone.metadata.name) && (
        <AddRecord
          zone={zone}
          path={path}
          rows={rows}
          added={(message) => {
            setRemoveError(undefined);
            setSaid(message);
            changed();
          }}
        />
      )}
      {said && <p role="status" class="zone-said">{said}</p>}
      <RecordFilter key={`${filter.name}|${filter.type}`} zone={zone} />
      <ErrorBox error={error} onRetry={() => setRound((r) => r + 1)} />
      <ErrorBox error={removeError} />
      <table class="cards" data-testid="records">
        <thead>
          <tr>
            <th>{t.recordName}</th>
            <th>{t.recordType}</th>
            <th class="num">{t.ttl}</th>
            <th>{t.data}</th>
            <th>{t.managedBy}</th>
            <th>{t.recordSet}</th>
            <th>
              <span class="zone-sr">{t.actions}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr
              key={`${row.recordSet.namespace}/${row.recordSet.name} ${row.name} ${row.type} ${row.data}`}
            >
              <td data-label={t.recordName}>{row.name}</td>
              <td data-label={t.recordType}>{row.type}</td>
              <td data-label={t.ttl} class="num">{row.ttl}</td>
              <td data-label={t.data} class="zone-data">
                {row.data}
                {row.disabled && <span class="muted">{` (${t.disabled})`}
                </span>}
              </td>
              <td data-label={t.managedBy}>{managerLabel(row.managedBy)}</td>
              <td data-label={t.recordSet}>
                {row.recordSet.namespace}/{row.recordSet.name}
              </td>
              <td data-label={t.actions} class="zone-action">
                {apiManaged(row.managedBy)
                  ? mayRemove && (
                    <button
                      type="button"
                      aria-label={fill(t.removeLabel, recordWords(row))}
                      onClick={() => void remove(row)}
                    >
                      {t.remove}
                    </button>
                  )
                  : (
                    <span class="muted">
                      {fill(t.readOnly, {
                        manager: managerLabel(row.managedBy),
                      })}
                    </span>
                  )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {loaded && rows.length === 0 && <p class="muted">{t.noRecords}</p>}
      {next !== undefined && (
        <button type="button" onClick={() => void more()}>
          {t.moreRecords}
        </button>
      )}
    </section>
  );
}

/** Name and type filters, kept in the address. */
function RecordFilter({ zone }: { zone: Zone }) {
  const t = strings.zones;
  const params = route.value.params;
  const [name, setName] = useState(params.get("name") ?? "");
  const [type, setType] = useState(params.get("type") ?? "");
  const apply = (values: Record<string, string>) =>
    navigate(
      href(`zones/${encodeURIComponent(zone.metadata.name)}`, values),
      { replace: true },
    );
  return (
    <form
      class="toolbar"
      aria-label={t.filter}
      onSubmit={(e) => {
        e.preventDefault();
        apply({ name, type });
      }}
    >
      <label>
        {t.recordName}
        <input
          name="filter-name"
          value={name}
          placeholder={`www.${zone.spec.zoneName}`}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        {t.recordType}
        <input
          name="filter-type"
          value={type}
          list="zone-record-types"
          size={8}
          onInput={(e) => setType((e.target as HTMLInputElement).value)}
        />
      </label>
      <button type="submit">{t.filter}</button>
      <button type="button" onClick={() => apply({})}>{t.clearFilter}</button>
    </form>
  );
}

/** A record as messages name it. */
const recordWords = (r: RecordRow) => ({
  name: r.name,
  type: r.type,
  data: r.data,
});

const EMPTY: RecordForm = { name: "", type: "A", ttl: "", data: "" };

function AddRecord(
  { zone, path, rows, added }: {
    zone: Zone;
    path: string;
    rows: RecordRow[];
    added: (message: string) => void;
  },
) {
  const t = strings.zones;
  const [form, setForm] = useState<RecordForm>(EMPTY);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [problems, setProblems] = useState<Problem[]>([]);
  const errors = fieldErrors(error, recordField);
  const set = (change: Partial<RecordForm>) => setForm({ ...form, ...change });

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setProblems([]);
    try {
      const answer = await request<{ record: RecordRow; problems: Problem[] }>(
        "POST",
        path,
        { body: recordBody(form) },
      );
      const r = answer.record;
      // 201 and 200 carry the same body: a row already listed was there.
      const there = rows.some((row) =>
        row.name === r.name && row.type === r.type && row.data === r.data
      );
      setProblems(answer.problems);
      setForm({ ...form, ttl: "", data: "" });
      added(fill(there ? t.present : t.added, recordWords(r)));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const hint = dataHint(form.type);
  return (
    <form
      class="zone-add"
      aria-labelledby="zone-add"
      onSubmit={submit}
      noValidate
    >
      <h3 id="zone-add">{t.addRecord}</h3>
      <div class="zone-add-fields">
        <Input
          label={t.recordName}
          name="name"
          value={form.name}
          onValue={(name) => set({ name })}
          error={errors.fields.name}
          hint={fill(t.recordNameHint, { zone: zone.spec.zoneName })}
          placeholder={`www.${zone.spec.zoneName}`}
        />
        <Input
          label={t.recordType}
          name="type"
          value={form.type}
          onValue={(type) => set({ type })}
          error={errors.fields.type}
          list="zone-record-types"
          size={8}
        />
        <Input
          label={t.ttl}
          name="ttl"
          value={form.ttl}
          onValue={(ttl) => set({ ttl })}
          error={errors.fields.ttl}
          hint={t.ttlHint}
          inputMode="numeric"
          size={8}
        />
        <Input
          label={t.data}
          name="data"
          value={form.data}
          onValue={(data) => set({ data })}
          error={errors.fields.data}
          hint={hint}
          placeholder={dataExample(form.type)}
          wide
        />
      </div>
      <ErrorBox error={boxError(error, errors)} />
      {problems.length > 0 && (
        <div class="zone-problems" role="status">
          <p>{t.problems}</p>
          <ul>
            {problems.map((p) => <li key={p.message}>{p.message}</li>)}
          </ul>
        </div>
      )}
      <button type="submit" class="primary" disabled={busy}>
        {busy ? t.adding : t.add}
      </button>
    </form>
  );
}

/** A labelled input with a hint under it and the API's message for it. */
function Input(
  { label, name, value, onValue, error, hint, wide, ...input }: {
    label: string;
    name: string;
    value: string;
    onValue: (value: string) => void;
    error: string | undefined;
    hint?: string;
    placeholder?: string;
    list?: string;
    size?: number;
    inputMode?: "numeric";
    wide?: boolean;
  },
) {
  const hintId = `zone-add-${name}-hint`;
  const errorId = `zone-add-${name}-error`;
  const described = [hint && hintId, error && errorId].filter(Boolean)
    .join(" ");
  return (
    <label class={wide ? "zone-add-data" : undefined}>
      {label}
      <input
        name={name}
        value={value}
        placeholder={input.placeholder}
        list={input.list}
        size={input.size}
        inputMode={input.inputMode}
        autocomplete="off"
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
        onInput={(e) => onValue((e.target as HTMLInputElement).value)}
      />
      {hint && <span id={hintId} class="muted zone-hint">{hint}</span>}
      {error && <span id={errorId} class="field-error">{error}</span>}
    </label>
  );
}
