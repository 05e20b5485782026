/**
 * The zones: every DNSZone the user may see (name, zone, type, serial,
 * Ready, record count, manager), in keyset pages, each linking to its
 * page (zone.tsx); and, for those who may create zones, the new-zone form
 * (a primary zone with its SOA and name servers).
 */
import "./zones.css";
import { useEffect, useState } from "preact/hooks";
import { get, request } from "../api.ts";
import { ErrorBox } from "../components/error_box.tsx";
import { count } from "../format.ts";
import { href, navigate, route } from "../router.ts";
import { can } from "../session.ts";
import { strings } from "../strings.ts";
import { boxError, fieldErrors, zoneField } from "../zones_issues.ts";
import {
  emptyZoneForm,
  managerLabel,
  newZoneBody,
  readyOf,
  type Zone,
  type ZoneForm,
} from "../zones_model.ts";
import { ZonePage } from "./zone.tsx";
import { ZoneFields } from "./zones/zone_fields.tsx";

const PAGE = 100;

interface ZoneList {
  items: Zone[];
  continue?: string;
}

/** /zones, and /zones/<name> for one zone. */
export function ZonesSection() {
  const name = route.value.path.split("/")[1];
  return name
    ? <ZonePage key={name} name={decodeURIComponent(name)} />
    : <ZonesPage />;
}

function ZonesPage() {
  const t = strings.zones;
  const [zones, setZones] = useState<Zone[]>([]);
  const [next, setNext] = useState<string | undefined>();
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<unknown>();
  const [round, setRound] = useState(0);

  useEffect(() => {
    const abort = new AbortController();
    setError(undefined);
    get<ZoneList>("dnszones", { limit: PAGE }, abort.signal).then(
      (page) => {
        setZones(page.items);
        setNext(page.continue);
        setLoaded(true);
      },
      (err) => !abort.signal.aborted && setError(err),
    );
    return () => abort.abort();
  }, [round]);

  const more = async () => {
    try {
      const page = await get<ZoneList>("dnszones", {
        limit: PAGE,
        continue: next,
      });
      setZones((current) => [...current, ...page.items]);
      setNext(page.continue);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <h1>{t.title}</h1>
      {can("dnszones", "create") && <NewZone />}
      <ErrorBox error={error} onRetry={() => setRound((r) => r + 1)} />
      <section class="panel" aria-labelledby="zones-list">
        <h2 id="zones-list">{t.list}</h2>
        <table class="cards zone-list" data-testid="zones">
          <thead>
            <tr>
              <th>{t.name}</th>
              <th>{t.zoneName}</th>
              <th>{t.type}</th>
              <th class="num">{t.serial}</th>
              <th>{t.ready}</th>
              <th class="num">{t.records}</th>
              <th>{t.managedBy}</th>
            </tr>
          </thead>
          <tbody>
            {zones.map((zone) => (
              <ZoneRow key={zone.metadata.name} zone={zone} />
            ))}
          </tbody>
        </table>
        {loaded && zones.length === 0 && <p class="muted">{t.none}</p>}
        {next !== undefined && (
          <button
            type="button"
            onClick={() => void more()}
          >
            {t.more}
          </button>
        )}
      </section>
    </>
  );
}

function ZoneRow({ zone }: { zone: Zone }) {
  const t = strings.zones;
  const ready = readyOf(zone);
  const records = zone.status?.recordCount;
  return (
    <tr>
      <td data-label={t.name}>
        <a href={href(`zones/${encodeURIComponent(zone.metadata.name)}`)}>
          {zone.metadata.name}
        </a>
      </td>
      <td data-label={t.zoneName}>{zone.spec.zoneName}</td>
      <td data-label={t.type}>{zone.spec.type}</td>
      <td data-label={t.serial} class="num">{zone.status?.serial ?? "—"}</td>
      <td data-label={t.ready}>
        <span class={`zone-${ready.state}`} title={ready.message}>
          {ready.label}
        </span>
      </td>
      <td data-label={t.records} class="num">
        {records === undefined ? "—" : count(records)}
      </td>
      <td data-label={t.managedBy}>{managerLabel(zone.metadata.managedBy)}</td>
    </tr>
  );
}

/** The new-zone form, behind its button. */
function NewZone() {
  const t = strings.zones;
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState<ZoneForm>(emptyZoneForm);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const errors = fieldErrors(error, zoneField);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const zone = await request<Zone>("POST", "dnszones", {
        body: newZoneBody(form),
      });
      navigate(href(`zones/${encodeURIComponent(zone.metadata.name)}`));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (!open) {
    return (
      <div class="toolbar">
        <button
          type="button"
          class="primary"
          aria-expanded="false"
          onClick={() => setOpen(true)}
        >
          {t.newZone}
        </button>
      </div>
    );
  }
  return (
    <section class="panel zone-new" aria-labelledby="zone-new">
      <h2 id="zone-new">{t.newZone}</h2>
      <p class="muted">{t.primary}</p>
      <form class="stack" onSubmit={submit}>
        <ZoneFields
          form={form}
          set={(change) => setForm({ ...form, ...change })}
          errors={errors.fields}
          names
        />
        <ErrorBox error={boxError(error, errors)} />
        <div class="toolbar">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? t.creating : t.create}
          </button>
          <button
            type="button"
            onClick={() => {
              setOpen(false);
              setError(undefined);
            }}
          >
            {t.cancel}
          </button>
        </div>
      </form>
    </section>
  );
}
