/**
 * One client's page: its queries and blocked queries over time, the names
 * it asks for and has blocked most, the groups it is in and the policies
 * that apply to it now, and its newest queries. The address and the
 * window are in the URL (/clients/<address>?range=24h).
 */
import { useApi } from "../components/use_api.ts";
import { ErrorBox } from "../components/error_box.tsx";
import { ClientChart } from "../components/client_chart.tsx";
import { count, percent, time } from "../format.ts";
import type { Entry } from "../querylog_state.ts";
import { href, navigate, route } from "../router.ts";
import { statusClass } from "../status.ts";
import { strings } from "../strings.ts";

interface ClientStats {
  client: string;
  queries: number;
  blocked: number;
  firstSeen: string | null;
  lastSeen: string | null;
  recent: {
    events: number;
    topDomains: { domain: string; queries: number }[];
    topBlocked: { domain: string; queries: number }[];
  };
  overTime: {
    buckets: { time: string; queries: number; blocked: number }[];
  };
}

interface Why {
  groups: string[];
  policies: string[];
  blockLists: string[];
  allowLists: string[];
}

const RANGES = ["1h", "24h", "7d", "30d"] as const;

export function ClientPage({ address }: { address: string }) {
  const t = strings.client;
  const range = route.value.params.get("range") ?? "24h";
  const stats = useApi<ClientStats>(
    `stats/clients/${encodeURIComponent(address)}`,
    { since: range },
  );
  // What the client gets now: the groups and policies of any question
  // (the name only matters for zones and rules, which this page leaves out).
  const why = useApi<Why>("why", { name: "example.com", client: address });
  const recent = useApi<{ items: Entry[] }>("querylog", {
    client: address,
    limit: 20,
  });
  const s = stats.data;
  return (
    <>
      <h1>{address}</h1>
      <div class="toolbar">
        <label>
          {strings.dashboard.range}
          <select
            value={range}
            onChange={(e) =>
              navigate(
                href(`clients/${encodeURIComponent(address)}`, {
                  range: (e.target as HTMLSelectElement).value,
                }),
                { replace: true },
              )}
          >
            {RANGES.map((r) => (
              <option key={r} value={r}>{strings.dashboard.ranges[r]}</option>
            ))}
          </select>
        </label>
        <a class="button" href={href("querylog", { client: address })}>
          {t.allQueries}
        </a>
      </div>
      <ErrorBox error={stats.error} onRetry={stats.reload} />
      <section class="tiles" aria-label={t.summary}>
        <div class="panel tile">
          <div class="label">{strings.dashboard.queries}</div>
          <span class="value" data-testid="client-queries">
            {s ? count(s.queries) : "–"}
          </span>
        </div>
        <div class="panel tile">
          <div class="label">{strings.dashboard.blocked}</div>
          <span class="value">
            {s
              ? `${count(s.blocked)} (${
                percent(s.queries === 0 ? 0 : 100 * s.blocked / s.queries)
              })`
              : "–"}
          </span>
        </div>
        <div class="panel tile">
          <div class="label">{t.lastSeen}</div>
          <span class="value">{s?.lastSeen ? time(s.lastSeen) : "–"}</span>
        </div>
      </section>
      <div class="grid">
        <section class="panel wide">
          <h2>{t.overTime}</h2>
          {s && <ClientChart buckets={s.overTime.buckets} label={t.overTime} />}
        </section>
        <section class="panel">
          <h2>{t.groups}</h2>
          <ErrorBox error={why.error} />
          {why.data && (
            <dl class="facts">
              <dt>{t.groups}</dt>
              <dd>{why.data.groups.join(", ") || t.noGroup}</dd>
              <dt>{t.policies}</dt>
              <dd data-testid="client-policies">
                {why.data.policies.join(", ") || t.noPolicy}
              </dd>
              <dt>{t.blockLists}</dt>
              <dd>{why.data.blockLists.join(", ") || "—"}</dd>
              <dt>{t.allowLists}</dt>
              <dd>{why.data.allowLists.join(", ") || "—"}</dd>
            </dl>
          )}
        </section>
        <Top
          title={strings.dashboard.topDomains}
          rows={s?.recent.topDomains}
          link={(domain) => href("querylog", { client: address, domain })}
        />
        <Top
          title={strings.dashboard.topBlocked}
          rows={s?.recent.topBlocked}
          link={(domain) =>
            href("querylog", { client: address, domain, status: "blocked" })}
        />
        <section class="panel wide">
          <h2>{t.recent}</h2>
          <table class="cards">
            <thead>
              <tr>
                <th>{strings.querylog.time}</th>
                <th>{strings.querylog.question}</th>
                <th>{strings.querylog.status}</th>
                <th>{strings.querylog.answer}</th>
              </tr>
            </thead>
            <tbody>
              {recent.data?.items.map((e, i) => (
                <tr key={i}>
                  <td data-label={strings.querylog.time}>{time(e.time)}</td>
                  <td data-label={strings.querylog.question}>
                    {e.qname} <span class="muted">{e.qtype}</span>
                  </td>
                  <td
                    data-label={strings.querylog.status}
                    class={statusClass(e.status)}
                  >
                    {e.status}
                  </td>
                  <td data-label={strings.querylog.answer}>
                    {e.answer || e.rcode}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </div>
    </>
  );
}

function Top(
  { title, rows, link }: {
    title: string;
    rows: { domain: string; queries: number }[] | undefined;
    link: (domain: string) => string;
  },
) {
  return (
    <section class="panel">
      <h2>{title}</h2>
      {rows?.length === 0 && <p class="muted">{strings.dashboard.none}</p>}
      <ul class="plain">
        {rows?.map((r) => (
          <li key={r.domain}>
            <a href={link(r.domain)}>{r.domain}</a>{" "}
            <span class="muted">{count(r.queries)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
