/**
 * The audit log: every change to what kudurru stores, newest first, with
 * the filters in the page's address and older pages by `continue`. A row
 * opens the object before and after the change, compared field by field.
 */
import { useUrlFilters } from "../../components/url_filters.tsx";
import { Fragment } from "preact";
import { useEffect, useState } from "preact/hooks";
import { get } from "../../api.ts";
import { countChanges, diffObjects } from "../../audit_diff.ts";
import { ErrorBox } from "../../components/error_box.tsx";
import { useApi } from "../../components/use_api.ts";
import { time } from "../../format.ts";
import { href, navigate, route } from "../../router.ts";
import { fill, strings } from "../../strings.ts";

interface AuditRow {
  id: number;
  time: string;
  actor: string;
  manager: string;
  action: string;
  kind: string;
  namespace?: string;
  name: string;
  resourceVersion: string;
  authorization?: string;
  client?: string;
}

interface AuditDetail extends AuditRow {
  before?: unknown;
  after?: unknown;
}

interface Page {
  items: AuditRow[];
  continue?: string;
}

const FILTERS = ["actor", "kind", "action", "since"] as const;
const PAGE = 50;
const PATH = "access/audit";

function resourceOf(row: AuditRow): string {
  return `${row.kind} ${row.namespace ? `${row.namespace}/` : ""}${row.name}`;
}

export function AuditTab() {
  const t = strings.access.auditLog;
  const params = route.value.params;
  const filters = Object.fromEntries(
    FILTERS.map((k) => [k, params.get(k) ?? undefined]),
  ) as Record<(typeof FILTERS)[number], string | undefined>;
  const key = JSON.stringify(filters);
  const [rows, setRows] = useState<AuditRow[]>([]);
  const [next, setNext] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [open, setOpen] = useState<number>();

  useEffect(() => {
    const abort = new AbortController();
    setError(undefined);
    setRows([]);
    get<Page>("audit", { ...filters, limit: PAGE }, abort.signal).then(
      (page) => {
        setRows(page.items);
        setNext(page.continue);
      },
      (err) => !abort.signal.aborted && setError(err),
    );
    return () => abort.abort();
  }, [key]);

  const older = async () => {
    if (next === undefined) return;
    try {
      const page = await get<Page>("audit", {
        ...filters,
        limit: PAGE,
        continue: next,
      });
      setRows((current) => [...current, ...page.items]);
      setNext(page.continue);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">{strings.access.audit}</h2>
      <Filters key={key} />
      <ErrorBox error={error} />
      <table class="cards" data-testid="audit">
        <thead>
          <tr>
            <th>{t.time}</th>
            <th>{t.actor}</th>
            <th>{t.authorization}</th>
            <th>{t.resource}</th>
            <th>{t.action}</th>
            <th>{t.client}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <Fragment key={row.id}>
              <tr
                class="log-row"
                onClick={() => setOpen(open === row.id ? undefined : row.id)}
              >
                <td data-label={t.time}>
                  <button
                    type="button"
                    class="link"
                    aria-expanded={open === row.id}
                    onClick={(e) => {
                      e.stopPropagation();
                      setOpen(open === row.id ? undefined : row.id);
                    }}
                  >
                    {time(row.time)}
                  </button>
                </td>
                <td data-label={t.actor}>{row.actor}</td>
                <td data-label={t.authorization}>
                  {row.authorization ?? "—"}
                </td>
                <td data-label={t.resource}>{resourceOf(row)}</td>
                <td data-label={t.action}>{row.action}</td>
                <td data-label={t.client}>{row.client ?? "—"}</td>
              </tr>
              {open === row.id && (
                <tr>
                  <td colSpan={6}>
                    <Detail id={row.id} onClose={() => setOpen(undefined)} />
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && !error && <p class="muted">{t.none}</p>}
      {next !== undefined && (
        <button type="button" onClick={() => void older()}>{t.more}</button>
      )}
    </section>
  );
}

function Detail({ id, onClose }: { id: number; onClose: () => void }) {
  const t = strings.access.auditLog;
  const row = useApi<AuditDetail>(`audit/${id}`);
  const [showSame, setShowSame] = useState(false);
  const data = row.data;
  const diff = data ? diffObjects(data.before, data.after) : [];
  const counts = countChanges(diff);
  const shown = showSame ? diff : diff.filter((r) => r.change !== "same");
  return (
    <div class="detail panel" role="region" aria-label={t.detail}>
      <h3>{t.detail}</h3>
      <ErrorBox error={row.error} onRetry={row.reload} />
      {data && (
        <>
          <p>
            {`${data.actor} · ${data.action} · ${resourceOf(data)}`}
            <span class="muted">
              {` · ${time(data.time)} · ${
                fill(t.manager, { manager: data.manager })
              }`}
            </span>
          </p>
          {data.before === undefined && data.after === undefined
            ? <p class="muted">{t.noBodies}</p>
            : (
              <>
                <div class="toolbar">
                  <span data-testid="diff-summary">
                    {fill(t.summary, counts)}
                  </span>
                  <label class="inline">
                    <input
                      type="checkbox"
                      checked={showSame}
                      onChange={(e) =>
                        setShowSame((e.target as HTMLInputElement).checked)}
                    />
                    {t.showSame}
                  </label>
                </div>
                <table class="cards diff" data-testid="diff">
                  <thead>
                    <tr>
                      <th>{t.field}</th>
                      <th>{t.before}</th>
                      <th>{t.after}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {shown.map((r) => (
                      <tr key={r.path} class={`diff-${r.change}`}>
                        <td data-label={t.field}>
                          <code>{r.path}</code>
                        </td>
                        <td data-label={t.before}>
                          {r.before !== undefined && <code>{r.before}</code>}
                        </td>
                        <td data-label={t.after}>
                          {r.after !== undefined && <code>{r.after}</code>}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </>
            )}
        </>
      )}
      <button type="button" onClick={onClose}>{t.close}</button>
    </div>
  );
}

function Filters() {
  const t = strings.access.auditLog;
  const { values, field } = useUrlFilters(FILTERS);
  return (
    <form
      class="toolbar"
      aria-label={t.filters}
      onSubmit={(e) => {
        e.preventDefault();
        navigate(href(PATH, values));
      }}
    >
      {field("actor", t.actor)}
      {field("kind", t.kind, "User")}
      {field("action", t.action, "update")}
      {field("since", t.since, t.sinceHint)}
      <button type="submit" class="primary">{t.apply}</button>
      <button type="button" onClick={() => navigate(href(PATH))}>
        {t.clear}
      </button>
    </form>
  );
}
