/**
 * "Why": how kudurru would answer a name for a client now (GET
 * /api/v1/why), with what decided it: the client's groups, the policies
 * and lists that apply, the list and rule that matched, the zone, the
 * upstream group, or the cache. Name, type and client live in the URL.
 */
import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { useApi } from "../components/use_api.ts";
import { ErrorBox } from "../components/error_box.tsx";
import { href, navigate, route } from "../router.ts";
import { can } from "../session.ts";
import { statusClass } from "../status.ts";
import { fill, strings } from "../strings.ts";

/** GET /api/v1/why's answer (src/pipeline/explanation.ts). */
export interface Explanation {
  name: string;
  type: string;
  client: string;
  status: string;
  stage: string;
  rcode: string;
  answer: string;
  groups: string[];
  policies: string[];
  blockLists: string[];
  allowLists: string[];
  zone?: string;
  list?: string;
  rule?: string;
  route?: { group: string; rule: string; suffix?: string };
  malformed?: string;
}

/** The query keys the tool keeps in the URL. */
export const WHY_KEYS = ["name", "type", "client"] as const;

/** The form and its explanation; `path` is the page it sits on. */
export function WhyTool({ path }: { path: string }) {
  const t = strings.why;
  const params = route.value.params;
  const asked = {
    name: params.get("name")?.trim() ?? "",
    type: params.get("type")?.trim() ?? "",
    client: params.get("client")?.trim() ?? "",
  };
  const why = useApi<Explanation>(
    asked.name === "" || !can("why", "get") ? undefined : "why",
    {
      name: asked.name,
      type: asked.type || undefined,
      client: asked.client || undefined,
    },
  );
  if (!can("why", "get")) return null;
  return (
    <section class="panel lists-why" aria-labelledby="why-heading" id="why">
      <h2 id="why-heading">{t.title}</h2>
      <p class="muted">{t.intro}</p>
      <WhyForm
        key={JSON.stringify(asked)}
        asked={asked}
        onAsk={(next) =>
          navigate(href(path, { ...Object.fromEntries(params), ...next }))}
      />
      {asked.name !== "" && (
        <>
          <ErrorBox error={why.error} onRetry={why.reload} />
          {why.data && !why.error && <WhyResult e={why.data} />}
        </>
      )}
    </section>
  );
}

type Asked = Record<(typeof WHY_KEYS)[number], string>;

function WhyForm(
  { asked, onAsk }: { asked: Asked; onAsk: (next: Asked) => void },
) {
  const t = strings.why;
  const [values, setValues] = useState(asked);
  const input = (key: keyof Asked, label: string, placeholder: string) => (
    <label>
      {label}
      <input
        name={key}
        value={values[key]}
        placeholder={placeholder}
        onInput={(e) =>
          setValues({ ...values, [key]: (e.target as HTMLInputElement).value })}
      />
    </label>
  );
  return (
    <form
      class="toolbar"
      aria-label={t.title}
      onSubmit={(e) => {
        e.preventDefault();
        onAsk({
          name: values.name.trim(),
          type: values.type.trim().toUpperCase(),
          client: values.client.trim(),
        });
      }}
    >
      {input("name", t.name, "ads.example.com")}
      {input("type", t.type, "A")}
      {input("client", t.client, t.clientHint)}
      <button type="submit" class="primary">{t.submit}</button>
    </form>
  );
}

/** The explanation, a row per thing that decided it. */
export function WhyResult({ e }: { e: Explanation }) {
  const t = strings.why;
  const names = (list: string[]) => list.length ? list.join(", ") : t.none;
  const decided = e.list === undefined ? undefined : fill(
    e.status.startsWith("blocked") ? t.blockedBy : t.allowedBy,
    { list: e.list, rule: e.rule ?? "" },
  );
  const rows: [string, string | undefined, string?][] = [
    [t.answer, e.answer || t.noAnswer],
    [t.status, e.status, statusClass(e.status)],
    [
      t.stage,
      e.status.startsWith("cached") ? `${t.cached} (${e.stage})` : e.stage,
    ],
    [t.rcode, e.rcode],
    [t.decided, decided],
    [t.groups, names(e.groups)],
    [t.policies, names(e.policies)],
    [t.blockLists, names(e.blockLists)],
    [t.allowLists, names(e.allowLists)],
    [t.zone, e.zone],
    [
      t.upstream,
      e.route && fill(t.route, {
        group: e.route.group,
        rule: fill(
          t.routeRules[e.route.rule as keyof typeof t.routeRules] ??
            e.route.rule,
          { suffix: e.route.suffix ?? "" },
        ),
      }),
    ],
    [t.malformed, e.malformed],
  ];
  return (
    <div class="detail" role="region" aria-label={t.result} data-testid="why">
      <p>
        <strong>
          {fill(t.summary, { name: e.name, type: e.type, client: e.client })}
        </strong>
      </p>
      <dl>
        {rows.filter(([, v]) =>
          v !== undefined && v !== ""
        ).map((
          [k, v, cls],
        ) => (
          <Fragment key={k}>
            <dt>{k}</dt>
            <dd class={cls}>{v}</dd>
          </Fragment>
        ))}
      </dl>
    </div>
  );
}
