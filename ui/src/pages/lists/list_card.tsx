/**
 * One BlockList: its mode, its Ready condition, each source with what the
 * last fetch or parse found (rules, invalid and unsupported lines with
 * examples, title, time, error), and what the user may do to it: switch a
 * source on or off, refresh now, delete.
 */
import { useState } from "preact/hooks";
import { request } from "../../api.ts";
import { count, time } from "../../format.ts";
import {
  type BlockList,
  displayName,
  type ListSource,
  objectPath,
  ownership,
  qualifiedName,
  type SourceStatus,
} from "../../lists_objects.ts";
import {
  hasUrlSource,
  readyCondition,
  refreshLines,
  type RefreshOutcome,
  ruleTotal,
  sourceOrigin,
  sourceStatuses,
  withSourceEnabled,
} from "../../lists_sources.ts";
import { can } from "../../session.ts";
import { fill, strings } from "../../strings.ts";
import {
  DeleteButton,
  OwnerNote,
  useAction,
  WriteError,
} from "./object_parts.tsx";

export function ListCard(
  { list, onChanged }: { list: BlockList; onChanged: () => void },
) {
  const t = strings.lists;
  const action = useAction();
  const [refreshed, setRefreshed] = useState<RefreshOutcome>();
  const path = objectPath("blocklists", list);
  const editable = !ownership(list).readOnly;
  const mayUpdate = editable && can("blocklists", "update");
  const mayDelete = editable && can("blocklists", "delete");
  const mayRefresh = can("blocklists", "refresh") && hasUrlSource(list);
  const ready = readyCondition(list);
  const statuses = sourceStatuses(list);
  const sources = list.spec?.sources ?? [];
  const headingId = `list-${qualifiedName(list).replace(/[^a-z0-9-]/g, "-")}`;

  const setEnabled = async (index: number, enabled: boolean) => {
    const saved = await action.run(() =>
      request<BlockList>("PATCH", path, {
        body: { spec: { sources: withSourceEnabled(sources, index, enabled) } },
        contentType: "application/merge-patch+json",
        ...(list.metadata.resourceVersion !== undefined &&
          { ifMatch: list.metadata.resourceVersion }),
      })
    );
    if (saved) onChanged();
  };
  const refresh = async () => {
    setRefreshed(undefined);
    const outcome = await action.run(() =>
      request<RefreshOutcome>("POST", `${path}:refresh`)
    );
    if (outcome) {
      setRefreshed(outcome);
      onChanged();
    }
  };
  const remove = async () => {
    const gone = await action.run(async () => {
      await request("DELETE", path, {
        ...(list.metadata.resourceVersion !== undefined &&
          { ifMatch: list.metadata.resourceVersion }),
      });
      return true;
    });
    if (gone) onChanged();
  };

  return (
    <article
      class="panel lists-card"
      aria-labelledby={headingId}
      data-testid={`blocklist-${qualifiedName(list)}`}
    >
      <div class="lists-head">
        <h3 id={headingId}>{displayName(list)}</h3>
        <span class={`lists-badge mode-${list.spec?.mode ?? "block"}`}>
          {t.modes[list.spec?.mode ?? "block"]}
        </span>
        <span data-testid="rule-total">
          {ruleTotal(list) === 1
            ? t.totalOne
            : fill(t.total, { count: count(ruleTotal(list)) })}
        </span>
        {ready && (
          <span
            class={ready.status === "True" ? "status-ok" : "status-blocked"}
          >
            {ready.status === "True" ? t.ready : t.notReady}
          </span>
        )}
      </div>
      <p class={ready?.status === "False" ? "field-error" : "muted"}>
        {ready?.message ?? t.noStatus}
      </p>
      <OwnerNote obj={list} />
      <table class="cards">
        <thead>
          <tr>
            <th>{t.source}</th>
            <th>{t.enabled}</th>
            <th class="num">{t.ruleCount}</th>
            <th class="num">{t.invalid}</th>
            <th class="num">{t.unsupported}</th>
            <th>{t.lastFetched}</th>
          </tr>
        </thead>
        <tbody>
          {sources.map((source, i) => (
            <SourceRow
              key={i}
              source={source}
              status={statuses[i]}
              busy={action.busy}
              {...(mayUpdate && { onEnabled: (on) => void setEnabled(i, on) })}
            />
          ))}
        </tbody>
      </table>
      <div class="toolbar lists-actions">
        {mayRefresh && (
          <button
            type="button"
            disabled={action.busy}
            onClick={() => void refresh()}
          >
            {action.busy ? t.refreshing : t.refresh}
          </button>
        )}
        {mayDelete && (
          <DeleteButton
            label={t.delete}
            name={displayName(list)}
            busy={action.busy}
            onDelete={() => void remove()}
          />
        )}
      </div>
      {refreshed && (
        <ul role="status" class="lists-refresh">
          {refreshLines(refreshed).map((line) => <li key={line}>{line}</li>)}
        </ul>
      )}
      <WriteError error={action.error} />
    </article>
  );
}

function SourceRow(
  { source, status, busy, onEnabled }: {
    source: ListSource;
    status: SourceStatus | undefined;
    busy: boolean;
    onEnabled?: (on: boolean) => void;
  },
) {
  const t = strings.lists;
  const enabled = source.enabled !== false;
  const origin = sourceOrigin(source);
  const label = source.name ?? origin;
  const number = (n: number | undefined) => n === undefined ? "—" : count(n);
  return (
    <tr>
      <td data-label={t.source}>
        <div class="lists-source">{label}</div>
        {source.name !== undefined && origin !== "" && (
          <div class="muted">{origin}</div>
        )}
        {status?.title && status.title !== label && (
          <div class="muted">{t.listTitle}: {status.title}</div>
        )}
        {source.format && source.format !== "auto" && (
          <div class="muted">{t.format}: {source.format}</div>
        )}
        {status?.error && <div class="field-error">{status.error}</div>}
        {status?.examples && status.examples.length > 0 && (
          <details>
            <summary>{t.examples}</summary>
            <ul class="lists-examples">
              {status.examples.map((line) => (
                <li key={line}>
                  <code>{line}</code>
                </li>
              ))}
            </ul>
          </details>
        )}
      </td>
      <td data-label={t.enabled}>
        {onEnabled
          ? (
            <label class="lists-inline">
              <input
                type="checkbox"
                checked={enabled}
                disabled={busy}
                aria-label={fill(t.sourceSwitch, { source: label })}
                onChange={(e) =>
                  onEnabled((e.target as HTMLInputElement).checked)}
              />
              {enabled ? t.on : t.off}
            </label>
          )
          : (enabled ? t.on : t.off)}
      </td>
      <td data-label={t.ruleCount} class="num">{number(status?.ruleCount)}</td>
      <td data-label={t.invalid} class="num">{number(status?.invalid)}</td>
      <td data-label={t.unsupported} class="num">
        {number(status?.unsupported)}
      </td>
      <td data-label={t.lastFetched}>
        {status?.lastFetched ? time(status.lastFetched) : "—"}
      </td>
    </tr>
  );
}
