/**
 * The dashboard: tiles, queries over time stacked by status, top domains,
 * top blocked, top clients and the upstreams, for a window (1 h … 30 d or
 * a custom range) and a node ("all nodes" or one). Window and node live in
 * the URL; every row links to the query log filtered to it.
 */
import { useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { QueriesChart } from "../components/chart.tsx";
import { ErrorBox } from "../components/error_box.tsx";
import { NodeSelect } from "../components/node_select.tsx";
import { useApi } from "../components/use_api.ts";
import { count, duration, percent } from "../format.ts";
import { href, navigate, route } from "../router.ts";
import { fill, strings } from "../strings.ts";
import type { Bucket } from "../components/chart.tsx";

interface Stats {
  since: string;
  until: string;
  totals: {
    queries: number;
    blocked: number;
    blockedPercent: number;
    cached: number;
    forwarded: number;
    clients: number;
  };
  overTime: { bucketMs: number; buckets: Bucket[] };
  topDomains: DomainRow[];
  topBlockedDomains: DomainRow[];
  upstreams: {
    upstream: string;
    queries: number;
    errors: number;
    avgDurationUs: number;
  }[];
}

interface DomainRow {
  domain: string;
  queries: number;
  blocked: number;
}

interface TopClients {
  items: { client: string; queries: number; blocked: number }[];
}

interface BlockLists {
  items: { status?: { sources?: { ruleCount?: number }[] } }[];
}

const RANGES = ["1h", "24h", "7d", "30d"] as const;

export function DashboardPage() {
  const t = strings.dashboard;
  const params = route.value.params;
  const range = params.get("range") ?? "24h";
  const custom = range === "custom";
  const node = params.get("node") ?? "";
  const window = custom
    ? {
      since: params.get("since") ?? undefined,
      until: params.get("until") ?? undefined,
    }
    : { since: range };
  const query = { ...window, node };
  const stats = useApi<Stats>("stats", query);
  const clients = useApi<TopClients>("stats/top-clients", query);
  const lists = useApi<BlockLists>("blocklists");
  const set = (change: Record<string, string | undefined>) =>
    navigate(
      href("", {
        range,
        node,
        since: params.get("since") ?? undefined,
        until: params.get("until") ?? undefined,
        ...change,
      }),
      { replace: true },
    );
  const logLink = (filters: Record<string, string>) =>
    href("querylog", { ...window, node, ...filters });

  const rules = lists.data?.items.reduce(
    (sum, list) =>
      sum +
      (list.status?.sources ?? []).reduce((n, s) => n + (s.ruleCount ?? 0), 0),
    0,
  );
  const totals = stats.data?.totals;
  return (
    <>
      <h1>{t.title}</h1>
      <div class="toolbar">
        <label>
          {t.range}
          <select
            value={range}
            onChange={(e) =>
              set({ range: (e.target as HTMLSelectElement).value })}
          >
            {RANGES.map((r) => <option key={r} value={r}>{t.ranges[r]}
            </option>)}
            <option value="custom">{t.custom}</option>
          </select>
        </label>
        {custom && <CustomRange set={set} />}
        <NodeSelect value={node} onChange={(n) => set({ node: n })} />
      </div>
      <ErrorBox error={stats.error} onRetry={stats.reload} />
      <section class="tiles" aria-label={t.title}>
        <Tile
          label={t.queries}
          value={totals && count(totals.queries)}
          link={logLink({})}
          testId="tile-queries"
        />
        <Tile
          label={t.blocked}
          value={totals &&
            `${count(totals.blocked)} (${percent(totals.blockedPercent)})`}
          link={logLink({ status: "blocked" })}
          testId="tile-blocked"
        />
        <Tile
          label={t.cached}
          value={totals &&
            percent(
              totals.queries === 0 ? 0 : 100 * totals.cached / totals.queries,
            )}
          link={logLink({ status: "cached" })}
          testId="tile-cached"
        />
        <Tile
          label={t.forwarded}
          value={totals && count(totals.forwarded)}
          link={logLink({ status: "forwarded" })}
          testId="tile-forwarded"
        />
        <Tile
          label={t.clients}
          value={totals && count(totals.clients)}
          testId="tile-clients"
        />
        <Tile
          label={t.rules}
          value={rules === undefined ? undefined : count(rules)}
          detail={lists.data &&
            fill(t.lists, { count: lists.data.items.length })}
          testId="tile-rules"
        />
      </section>
      <div class="grid">
        <section class="panel wide">
          <h2>{t.overTime}</h2>
          {stats.data && (
            <QueriesChart
              buckets={stats.data.overTime.buckets}
              label={t.overTime}
            />
          )}
        </section>
        <DomainTable
          title={t.topDomains}
          rows={stats.data?.topDomains}
          link={(d) => logLink({ domain: d })}
        />
        <DomainTable
          title={t.topBlocked}
          rows={stats.data?.topBlockedDomains}
          link={(d) => logLink({ domain: d, status: "blocked" })}
        />
        <section class="panel">
          <h2>{t.topClients}</h2>
          {clients.error instanceof ApiError && clients.error.status === 403
            ? <ErrorBox error={clients.error} />
            : (
              <CountTable
                head={t.client}
                rows={clients.data?.items.map((c) => ({
                  key: c.client,
                  label: c.client,
                  link: href(`clients/${encodeURIComponent(c.client)}`, {
                    range: custom ? undefined : range,
                  }),
                  queries: c.queries,
                  blocked: c.blocked,
                }))}
              />
            )}
        </section>
        <section class="panel">
          <h2>{t.upstreams}</h2>
          <table>
            <thead>
              <tr>
                <th>{t.upstream}</th>
                <th class="num">{t.count}</th>
                <th class="num">{t.latency}</th>
              </tr>
            </thead>
            <tbody>
              {stats.data?.upstreams.map((u) => (
                <tr key={u.upstream}>
                  <td>
                    <a href={logLink({ upstream: u.upstream })}>{u.upstream}</a>
                  </td>
                  <td class="num">{count(u.queries)}</td>
                  <td class="num">{duration(u.avgDurationUs)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {stats.data?.upstreams.length === 0 && <p class="muted">{t.none}</p>}
        </section>
      </div>
    </>
  );
}

function CustomRange(
  { set }: { set: (c: Record<string, string | undefined>) => void },
) {
  const t = strings.dashboard;
  const params = route.value.params;
  const [since, setSince] = useState(params.get("since") ?? "");
  const [until, setUntil] = useState(params.get("until") ?? "");
  return (
    <form
      class="toolbar"
      onSubmit={(e) => {
        e.preventDefault();
        set({ since, until });
      }}
    >
      <label>
        {t.since}
        <input
          value={since}
          placeholder="2026-01-01T00:00:00Z"
          onInput={(e) => setSince((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        {t.until}
        <input
          value={until}
          placeholder="now"
          onInput={(e) => setUntil((e.target as HTMLInputElement).value)}
        />
      </label>
      <button type="submit">{t.apply}</button>
    </form>
  );
}

function Tile(
  { label, value, detail, link, testId }: {
    label: string;
    value: string | undefined;
    detail?: string | undefined;
    link?: string;
    testId: string;
  },
) {
  const shown = <span class="value" data-testid={testId}>{value ?? "–"}</span>;
  return (
    <div class="panel tile">
      <div class="label">{label}</div>
      {link ? <a href={link}>{shown}</a> : shown}
      {detail && <div class="muted">{detail}</div>}
    </div>
  );
}

function DomainTable(
  { title, rows, link }: {
    title: string;
    rows: DomainRow[] | undefined;
    link: (domain: string) => string;
  },
) {
  return (
    <section class="panel">
      <h2>{title}</h2>
      <CountTable
        head={strings.dashboard.domain}
        rows={rows?.map((r) => ({
          key: r.domain,
          label: r.domain,
          link: link(r.domain),
          queries: r.queries,
          blocked: r.blocked,
        }))}
      />
    </section>
  );
}

function CountTable(
  { head, rows }: {
    head: string;
    rows:
      | {
        key: string;
        label: string;
        link: string;
        queries: number;
        blocked: number;
      }[]
      | undefined;
  },
) {
  const t = strings.dashboard;
  if (rows?.length === 0) return <p class="muted">{t.none}</p>;
  return (
    <table>
      <thead>
        <tr>
          <th>{head}</th>
          <th class="num">{t.count}</th>
          <th class="num">{t.blocked}</th>
        </tr>
      </thead>
      <tbody>
        {rows?.map((r) => (
          <tr key={r.key}>
            <td>
              <a href={r.link}>{r.label}</a>
            </td>
            <td class="num">{count(r.queries)}</td>
            <td class="num">{count(r.blocked)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
