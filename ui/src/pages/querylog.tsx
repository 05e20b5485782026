/**
 * The query log: newest first, filtered by what the URL says, and live
 * (Server-Sent Events from querylog/tail with the same filters) until
 * paused or bounded by `until`. Older pages load with `continue`. A row
 * opens its detail: why the answer was what it was.
 */
import { useUrlFilters } from "../components/url_filters.tsx";
import { useEffect, useRef, useState } from "preact/hooks";
import { apiUrl, get } from "../api.ts";
import { can } from "../session.ts";
import { type Explanation, WhyResult } from "./why.tsx";
import { ErrorBox } from "../components/error_box.tsx";
import { QuickActions } from "./querylog_actions.tsx";
import { NodeSelect } from "../components/node_select.tsx";
import { duration, time } from "../format.ts";
import {
  cnameChain,
  type Entry,
  FILTER_KEYS,
  filtersOf,
  liveKey,
  mergeLive,
} from "../querylog_state.ts";
import { href, navigate, route } from "../router.ts";
import { statusClass } from "../status.ts";
import { fill, strings } from "../strings.ts";

const PAGE = 100;

interface Page {
  items: Entry[];
  continue: string | null;
}

export function QueryLogPage() {
  const t = strings.querylog;
  const params = route.value.params;
  const filters = filtersOf(params);
  const paused = params.get("live") === "off" || filters.until !== undefined;
  const key = JSON.stringify(filters);
  const [rows, setRows] = useState<Entry[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>();
  const [dropped, setDropped] = useState(0);
  const [open, setOpen] = useState<string | undefined>();
  const seen = useRef(new Set<string>());

  // The first page, again whenever the filters change or live resumes.
  useEffect(() => {
    const abort = new AbortController();
    setError(undefined);
    setDropped(0);
    get<Page>("querylog", { ...filters, limit: PAGE }, abort.signal).then(
      (page) => {
        seen.current = new Set(page.items.map((e) => entryKey(e)));
        setRows(page.items);
        setNext(page.continue);
      },
      (err) => !abort.signal.aborted && setError(err),
    );
    return () => abort.abort();
  }, [key, paused]);

  // Live: new queries arrive at the top.
  useEffect(() => {
    if (paused) return;
    const { since: _since, ...live } = filters;
    const source = new EventSource(apiUrl("querylog/tail", live));
    source.addEventListener("query", (event) => {
      const entry = JSON.parse((event as MessageEvent).data) as Entry;
      setRows((current) => mergeLive(current, [entry], seen.current));
    });
    source.addEventListener("dropped", (event) => {
      const { dropped: n } = JSON.parse((event as MessageEvent).data);
      setDropped((d) => d + n);
    });
    return () => source.close();
  }, [key, paused]);

  const older = async () => {
    if (next === null) return;
    try {
      const page = await get<Page>("querylog", {
        ...filters,
        limit: PAGE,
        continue: next,
      });
      for (const e of page.items) seen.current.add(entryKey(e));
      setRows((current) => [...current, ...page.items]);
      setNext(page.continue);
    } catch (err) {
      setError(err);
    }
  };

  const setLive = (on: boolean) =>
    navigate(
      href("querylog", { ...filters, live: on ? undefined : "off" }),
      { replace: true },
    );

  return (
    <>
      <h1>{t.title}</h1>
      <Filters key={key} />
      <div class="toolbar">
        <span role="status" data-testid="live-state">
          {paused ? t.paused : t.live}
        </span>
        {filters.until === undefined && (
          <button
            type="button"
            onClick={() => setLive(paused)}
          >
            {paused ? t.resume : t.pause}
          </button>
        )}
        <a
          class="button"
          href={apiUrl("querylog/export", { ...filters, format: "csv" })}
          download
        >
          {t.exportCsv}
        </a>
        <a
          class="button"
          href={apiUrl("querylog/export", { ...filters, format: "ndjson" })}
          download
        >
          {t.exportNdjson}
        </a>
      </div>
      {dropped > 0 && <p class="muted">{fill(t.dropped, { count: dropped })}
      </p>}
      <ErrorBox error={error} />
      <table class="cards" data-testid="querylog">
        <thead>
          <tr>
            <th>{t.time}</th>
            <th>{t.client}</th>
            <th>{t.question}</th>
            <th>{t.status}</th>
            <th>{t.answer}</th>
            <th>{t.node}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((entry) => {
            const id = entryKey(entry);
            return (
              <Row
                key={id}
                entry={entry}
                open={open === id}
                toggle={() => setOpen(open === id ? undefined : id)}
              />
            );
          })}
        </tbody>
      </table>
      {rows.length === 0 && !error && <p class="muted">{t.none}</p>}
      {next !== null && (
        <button type="button" onClick={() => void older()}>{t.more}</button>
      )}
    </>
  );
}

/** Rows are told apart the way live events are (stored ones too). */
const entryKey = liveKey;

function Row(
  { entry, open, toggle }: { entry: Entry; open: boolean; toggle: () => void },
) {
  const t = strings.querylog;
  return (
    <>
      <tr class="log-row" onClick={toggle}>
        <td data-label={t.time}>
          <button
            type="button"
            class="link"
            aria-expanded={open}
            onClick={(e) => {
              e.stopPropagation();
              toggle();
            }}
          >
            {time(entry.time)}
          </button>
        </td>
        <td data-label={t.client}>
          <a
            href={href(`clients/${encodeURIComponent(entry.client)}`)}
            onClick={(e) => e.stopPropagation()}
          >
            {entry.client}
          </a>
        </td>
        <td data-label={t.question}>
          {entry.qname} <span class="muted">{entry.qtype}</span>
        </td>
        <td data-label={t.status} class={statusClass(entry.status)}>
          {entry.status}
        </td>
        <td data-label={t.answer}>{entry.answer || entry.rcode}</td>
        <td data-label={t.node}>{entry.node}</td>
      </tr>
      {open && (
        <tr>
          <td colSpan={6}>
            <Detail entry={entry} />
          </td>
        </tr>
      )}
    </>
  );
}

/** "15 Blocked: blocked by ads", or undefined when the answer had none. */
function extendedError(entry: Entry): string | undefined {
  const ede = entry.extendedError;
  if (ede === undefined) return undefined;
  const d = strings.querylog.detailRows;
  return fill(ede.text === "" ? d.edeValue : d.edeWithText, {
    code: ede.infoCode,
    name: ede.name,
    text: ede.text,
  });
}

function Detail({ entry }: { entry: Entry }) {
  const t = strings.querylog;
  const d = t.detailRows;
  const [now, setNow] = useState<Explanation>();
  const [error, setError] = useState<unknown>();
  const cnames = cnameChain(entry.answer);
  const rows: [string, string | undefined][] = [
    [
      d.client,
      fill(d.clientValue, {
        client: entry.client,
        port: entry.clientPort,
        transport: entry.transport,
      }),
    ],
    [d.groups, entry.groups.join(", ") || "—"],
    [
      d.status,
      fill(d.statusValue, { status: entry.status, stage: entry.stage }),
    ],
    [d.rcode, entry.rcode],
    [d.list, entry.list],
    [d.rule, entry.rule],
    [d.ede, extendedError(entry)],
    [d.upstream, entry.upstream],
    [d.cnames, cnames.length > 0 ? cnames.join(" → ") : undefined],
    [d.answer, entry.answer || "—"],
    [d.duration, duration(entry.durationUs)],
    [d.size, fill(d.sizeValue, { bytes: entry.responseSize })],
    [
      d.dnssec,
      fill(d.dnssecValue, {
        do: entry.dnssecOk ? d.set : d.notSet,
        ad: entry.authenticData ? d.set : d.notSet,
      }),
    ],
    [d.node, entry.node],
  ];
  const explain = async () => {
    setError(undefined);
    try {
      setNow(
        await get<Explanation>("why", {
          name: entry.qname,
          type: entry.qtype,
          client: entry.client,
        }),
      );
    } catch (err) {
      setError(err);
    }
  };
  return (
    <div class="detail panel" role="region" aria-label={t.detail}>
      <h2>{t.detail}</h2>
      <QuickActions entry={entry} />
      <dl>
        {rows.filter(([, v]) => v !== undefined && v !== "").map(([k, v]) => (
          <>
            <dt key={`${k}-t`}>{k}</dt>
            <dd key={`${k}-d`}>{v}</dd>
          </>
        ))}
      </dl>
      {can("why", "get") && !now && (
        <button
          type="button"
          onClick={() => void explain()}
        >
          {t.explainNow}
        </button>
      )}
      <ErrorBox error={error} />
      {now && (
        <section aria-label={t.explainNow}>
          <h3>{t.explainNow}</h3>
          <WhyResult e={now} />
        </section>
      )}
    </div>
  );
}

function Filters() {
  const t = strings.querylog;
  const { values, set, field } = useUrlFilters(FILTER_KEYS);
  const apply = (next: Record<string, string>) =>
    navigate(href("querylog", next));
  return (
    <form
      class="toolbar"
      aria-label={t.filters}
      onSubmit={(e) => {
        e.preventDefault();
        apply(values);
      }}
    >
      {field("client", t.client)}
      {field("domain", t.domain, t.domainHint)}
      {field("type", t.type, "A")}
      <label>
        {t.status}
        <select
          name="status"
          value={values.status}
          onChange={(e) => set("status", (e.target as HTMLSelectElement).value)}
        >
          <option value="">{t.any}</option>
          {[
            "blocked",
            "forwarded",
            "cached",
            "authoritative",
            "local_record",
            "servfail_upstream",
            "timeout_upstream",
            "refused",
          ].map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
      </label>
      {field("rcode", t.rcode, "NXDOMAIN")}
      {field("upstream", t.upstream)}
      {field("since", t.since, "1h")}
      {field("until", t.until)}
      <NodeSelect
        value={values.node ?? ""}
        onChange={(node) => set("node", node)}
      />
      <button type="submit" class="primary">{t.apply}</button>
      <button type="button" onClick={() => apply({})}>{t.clear}</button>
    </form>
  );
}
