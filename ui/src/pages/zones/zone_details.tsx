/**
 * A zone's details (type, serial, Ready, records, manager, SOA, name
 * servers, default TTL), and for those who may: editing them (a merge
 * patch conditional on the resourceVersion read: a change made in
 * between answers 409 conflict, shown with its message) and deleting the
 * zone. A zone another manager owns is changed there, not here.
 */
import { useState } from "preact/hooks";
import { ApiError, get, request } from "../../api.ts";
import { ErrorBox } from "../../components/error_box.tsx";
import { count } from "../../format.ts";
import { href, navigate } from "../../router.ts";
import { can } from "../../session.ts";
import { fill, strings } from "../../strings.ts";
import { boxError, fieldErrors, zoneField } from "../../zones_issues.ts";
import {
  apiManaged,
  managedNote,
  managerLabel,
  onlyStatusMoved,
  readyOf,
  soaText,
  type Zone,
  type ZoneForm,
  zoneFormOf,
  zonePatch,
} from "../../zones_model.ts";
import { ZoneFields } from "./zone_fields.tsx";

export function ZoneDetails(
  { zone, reload }: { zone: Zone; reload: () => void },
) {
  const t = strings.zones;
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  const mine = apiManaged(zone.metadata.managedBy);
  const ready = readyOf(zone);
  const rows: [string, string][] = [
    [t.name, zone.metadata.name],
    [t.type, zone.spec.type],
    [t.serial, zone.status?.serial?.toString() ?? "—"],
    [
      t.readyState,
      ready.message ? `${ready.label} (${ready.message})` : ready.label,
    ],
    [
      t.records,
      zone.status?.recordCount === undefined
        ? "—"
        : count(zone.status.recordCount),
    ],
    [t.managedBy, managerLabel(zone.metadata.managedBy)],
  ];
  if (zone.spec.forward) {
    rows.push([t.forwardTo, zone.spec.forward.upstreamGroup]);
  } else if (zone.spec.secondary) {
    rows.push(
      [t.primaries, zone.spec.secondary.primaries.join(", ")],
      [t.lastTransfer, zone.status?.lastTransfer ?? "—"],
      [t.lastRefresh, zone.status?.lastRefresh ?? "—"],
    );
  } else {
    rows.push(
      [t.soa, zone.spec.soa ? soaText(zone.spec.soa) : t.noSoa],
      [t.nameservers, (zone.spec.nameservers ?? []).join(", ") || "—"],
    );
  }
  rows.push([t.defaultTTL, zone.spec.defaultTTL?.toString() ?? "—"]);
  return (
    <section class="panel zone-details" aria-labelledby="zone-details">
      <h2 id="zone-details">{t.details}</h2>
      <dl data-testid="zone-details">
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      {!mine && <p class="muted">{managedNote(zone.metadata.managedBy)}</p>}
      {saved && !editing && <p role="status">{t.saved}</p>}
      {mine && can("dnszones", "update", zone.metadata.name) &&
        zone.spec.type === "primary" &&
        (editing
          ? (
            <EditZone
              zone={zone}
              done={(ok) => {
                setEditing(false);
                setSaved(ok);
                if (ok) reload();
              }}
              reload={reload}
            />
          )
          : (
            <div class="toolbar">
              <button
                type="button"
                onClick={() => {
                  setSaved(false);
                  setEditing(true);
                }}
              >
                {t.edit}
              </button>
            </div>
          ))}
      {mine && can("dnszones", "delete", zone.metadata.name) && !editing && (
        <DeleteZone zone={zone} />
      )}
    </section>
  );
}

/**
 * A write conditional on the version of `zone`; when it conflicts only
 * because the status moved (onlyStatusMoved), once more on the version
 * now. A change to the spec in between stays a 409 conflict.
 */
async function conditional(
  zone: Zone,
  send: (version: { ifMatch?: string }) => Promise<unknown>,
): Promise<void> {
  const version = (z: Zone): { ifMatch?: string } =>
    z.metadata.resourceVersion === undefined
      ? {}
      : { ifMatch: `"${z.metadata.resourceVersion}"` };
  try {
    await send(version(zone));
  } catch (error) {
    if (!(error instanceof ApiError && error.key === "conflict")) throw error;
    const now = await get<Zone>(zonePath(zone));
    if (!onlyStatusMoved(zone, now)) throw error;
    await send(version(now));
  }
}

const zonePath = (zone: Zone) =>
  `dnszones/${encodeURIComponent(zone.metadata.name)}`;

function EditZone(
  { zone, done, reload }: {
    zone: Zone;
    done: (saved: boolean) => void;
    reload: () => void;
  },
) {
  const t = strings.zones;
  // The values as read: only what differs from them is sent.
  const [before] = useState<ZoneForm>(() => zoneFormOf(zone));
  const [form, setForm] = useState<ZoneForm>(before);
  // The zone as last read: its version is the one a save is conditional on.
  const [base, setBase] = useState<Zone>(zone);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const errors = fieldErrors(error, zoneField);

  const submit = async (event: Event) => {
    event.preventDefault();
    const patch = zonePatch(before, form);
    if (patch === undefined) {
      done(false);
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await conditional(base, (version) =>
        request("PATCH", zonePath(zone), {
          body: patch,
          contentType: "application/merge-patch+json",
          ...version,
        }));
      done(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  // After a 409 conflict (the zone changed since it was read): the edits
  // made here stay for the next save, which sends only what they changed.
  const readAgain = async () => {
    try {
      setBase(await get<Zone>(zonePath(zone)));
      setError(undefined);
      reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <form class="stack zone-edit" onSubmit={submit}>
      <ZoneFields
        form={form}
        set={(change) => setForm({ ...form, ...change })}
        errors={errors.fields}
        names={false}
      />
      <ErrorBox
        error={boxError(error, errors)}
        {...(error instanceof ApiError && error.key === "conflict" && {
          onRetry: () => void readAgain(),
        })}
      />
      <div class="toolbar">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? t.saving : t.save}
        </button>
        <button type="button" onClick={() => done(false)}>{t.cancel}</button>
      </div>
    </form>
  );
}

function DeleteZone({ zone }: { zone: Zone }) {
  const t = strings.zones;
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<unknown>();
  const remove = async () => {
    setError(undefined);
    try {
      await conditional(
        zone,
        (version) => request("DELETE", zonePath(zone), version),
      );
      navigate(href("zones"));
    } catch (err) {
      setError(err);
    }
  };
  return (
    <div class="zone-delete">
      {asking
        ? (
          <div class="toolbar" role="group" aria-label={t.deleteZone}>
            <span>
              {fill(t.confirmDelete, {
                name: zone.metadata.name,
                zoneName: zone.spec.zoneName,
              })}
            </span>
            <button type="button" class="danger" onClick={() => void remove()}>
              {t.confirmDeleteButton}
            </button>
            <button type="button" onClick={() => setAsking(false)}>
              {t.cancel}
            </button>
          </div>
        )
        : (
          <div class="toolbar">
            <button type="button" onClick={() => setAsking(true)}>
              {t.deleteZone}
            </button>
          </div>
        )}
      <ErrorBox error={error} />
    </div>
  );
}
