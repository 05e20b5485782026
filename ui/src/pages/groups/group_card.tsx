/**
 * One ClientGroup: what a client in it gets now (asked of GET
 * /api/v1/why for an address inside the group, so schedules and narrower
 * groups count as the DNS listeners count them), its members, adding and
 * removing them, and deleting the group.
 */
import { useEffect, useState } from "preact/hooks";
import { request } from "../../api.ts";
import { useApi } from "../../components/use_api.ts";
import {
  type Client,
  type ClientGroup,
  displayName,
  fieldErrors,
  issuesOf,
  objectPath,
  ownership,
  qualifiedName,
} from "../../lists_objects.ts";
import {
  MEMBER_KINDS,
  type MemberKind,
  memberKind,
  memberValue,
  parseMember,
  probeAddress,
  sameMember,
} from "../../policy_members.ts";
import { href } from "../../router.ts";
import { can } from "../../session.ts";
import { fill, strings } from "../../strings.ts";
import type { Explanation } from "../why.tsx";
import {
  DeleteButton,
  OwnerNote,
  useAction,
  WriteError,
} from "../lists/object_parts.tsx";

/** Any name: the groups and policies of a client do not depend on it. */
const PROBE_NAME = "example.com";
/** How often, and how far apart, "now" is asked after a change. */
const RECHECKS = 3;
const RECHECK_MS = 1000;

export function GroupCard(
  { group, stamp, onChanged }: {
    group: ClientGroup;
    /** Changes when anything "now" depends on changed (the policies). */
    stamp: string;
    onChanged: () => void;
  },
) {
  const t = strings.groups;
  const action = useAction();
  const path = objectPath("clientgroups", group);
  const editable = !ownership(group).readOnly;
  const mayUpdate = editable && can("clientgroups", "update");
  const mayDelete = editable && can("clientgroups", "delete");
  const clients = group.spec?.clients ?? [];
  const headingId = `group-${qualifiedName(group).replace(/[^a-z0-9-]/g, "-")}`;
  const version = group.metadata.resourceVersion;

  const save = async (next: Client[]) => {
    const saved = await action.run(() =>
      request<ClientGroup>("PATCH", path, {
        body: { spec: { clients: next } },
        contentType: "application/merge-patch+json",
        ...(version !== undefined && { ifMatch: version }),
      })
    );
    if (saved) onChanged();
    return saved !== undefined;
  };
  const remove = async () => {
    const gone = await action.run(async () => {
      await request("DELETE", path, {
        ...(version !== undefined && { ifMatch: version }),
      });
      return true;
    });
    if (gone) onChanged();
  };
  const labelled = clients.some((c) => c.name !== undefined);
  const commented = clients.some((c) => c.comment !== undefined);
  const newIndex = `spec.clients[${clients.length}]`;
  const { byField, rest } = fieldErrors(issuesOf(action.error), [newIndex]);

  return (
    <article
      class="panel groups-card"
      aria-labelledby={headingId}
      data-testid={`group-${qualifiedName(group)}`}
    >
      <h3 id={headingId}>{displayName(group)}</h3>
      <OwnerNote obj={group} />
      <GroupNow key={`${version}:${stamp}`} group={group} />
      <h4>{t.members}</h4>
      {clients.length === 0
        ? <p class="muted">{t.noMembers}</p>
        : (
          <table class="cards">
            <thead>
              <tr>
                <th>{t.member}</th>
                <th>{t.kind}</th>
                {labelled && <th>{t.memberLabel}</th>}
                {commented && <th>{t.comment}</th>}
                {mayUpdate && (
                  <th>
                    <span class="lists-hidden">{t.remove}</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {clients.map((client, i) => {
                const kind = memberKind(client);
                const value = memberValue(client);
                return (
                  <tr key={`${kind}:${value}:${i}`}>
                    <td data-label={t.member}>
                      <code>{value}</code>
                    </td>
                    <td data-label={t.kind}>{kind ? t.kinds[kind] : ""}</td>
                    {labelled && (
                      <td data-label={t.memberLabel}>{client.name ?? ""}</td>
                    )}
                    {commented && (
                      <td data-label={t.comment}>{client.comment ?? ""}</td>
                    )}
                    {mayUpdate && (
                      <td>
                        <button
                          type="button"
                          disabled={action.busy}
                          onClick={() =>
                            void save(clients.filter((_, j) => j !== i))}
                        >
                          {fill(t.removeMember, { member: value })}
                        </button>
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      {mayUpdate && (
        <AddMember
          group={group}
          busy={action.busy}
          serverError={byField[newIndex]}
          onAdd={(member) => save([...clients, member])}
        />
      )}
      <WriteError error={action.error} issues={rest} />
      {mayDelete && (
        <div class="toolbar lists-actions">
          <DeleteButton
            label={t.deleteGroup}
            name={displayName(group)}
            busy={action.busy}
            onDelete={() => void remove()}
          />
        </div>
      )}
    </article>
  );
}

function AddMember(
  { group, busy, serverError, onAdd }: {
    group: ClientGroup;
    busy: boolean;
    serverError: string | undefined;
    onAdd: (member: Client) => Promise<boolean>;
  },
) {
  const t = strings.groups;
  const [kind, setKind] = useState<MemberKind | "auto">("auto");
  const [value, setValue] = useState("");
  const [label, setLabel] = useState("");
  const [problem, setProblem] = useState<string>();
  const add = async () => {
    const parsed = parseMember(kind, value, label);
    if ("error" in parsed) return setProblem(parsed.error);
    const clients = group.spec?.clients ?? [];
    if (clients.some((c) => sameMember(c, parsed.member))) {
      return setProblem(t.duplicateMember);
    }
    setProblem(undefined);
    if (await onAdd(parsed.member)) {
      setValue("");
      setLabel("");
    }
  };
  const error = problem ?? serverError;
  return (
    <form
      class="lists-row groups-add"
      aria-label={fill(t.addTo, { group: displayName(group) })}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void add();
      }}
    >
      <label>
        {t.kind}
        <select
          name="kind"
          value={kind}
          onChange={(e) =>
            setKind(
              (e.target as HTMLSelectElement).value as MemberKind | "auto",
            )}
        >
          <option value="auto">{t.kinds.auto}</option>
          {MEMBER_KINDS.map((k) => (
            <option key={k} value={k}>{t.kinds[k]}</option>
          ))}
        </select>
      </label>
      <label>
        {t.member}
        <input
          name="member"
          value={value}
          placeholder={t.memberHint}
          aria-invalid={error ? true : undefined}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
        />
        {error && <span class="field-error">{error}</span>}
      </label>
      <label>
        {t.label}
        <input
          name="label"
          value={label}
          onInput={(e) => setLabel((e.target as HTMLInputElement).value)}
        />
      </label>
      <div class="groups-submit">
        <button type="submit" class="primary" disabled={busy}>
          {t.addMember}
        </button>
      </div>
    </form>
  );
}

/** What a client at an address inside the group gets now, by "why". */
function GroupNow({ group }: { group: ClientGroup }) {
  const t = strings.groups;
  const address = probeAddress(group.spec?.clients ?? []);
  const allowed = can("why", "get");
  const why = useApi<Explanation>(
    address === undefined || !allowed ? undefined : "why",
    { name: PROBE_NAME, client: address },
  );
  // The DNS listeners take a change up a moment after the API stored it:
  // ask again after each answer, a few times, so "now" catches up.
  const [asked, setAsked] = useState(1);
  useEffect(() => {
    if (why.data === undefined || why.loading || asked >= RECHECKS) return;
    const timer = setTimeout(() => {
      setAsked(asked + 1);
      why.reload();
    }, RECHECK_MS);
    return () => clearTimeout(timer);
  }, [why.data, why.loading, asked]);
  if (!allowed) return null;
  if (address === undefined) return <p class="muted">{t.nowNoAddress}</p>;
  const e = why.data;
  let text = "";
  if (e) {
    const names = (list: string[]) => list.join(", ");
    if (!e.groups.includes(qualifiedName(group))) {
      text = fill(t.nowOther, { address, groups: names(e.groups) });
    } else if (e.policies.length === 0) {
      text = fill(t.nowNoPolicy, { address });
    } else {
      text = fill(t.nowGets, {
        address,
        policies: names(e.policies),
        lists: e.blockLists.length ? names(e.blockLists) : t.noLists,
      });
    }
  }
  return (
    <div class="groups-now" data-testid="group-now">
      <strong>{t.now}:</strong> {why.error
        ? (
          <span class="field-error">
            {why.error instanceof Error ? why.error.message : String(why.error)}
          </span>
        )
        : <span>{text || strings.app.loading}</span>}{" "}
      <a href={href("lists", { client: address })}>
        {fill(t.explain, { address })}
      </a>
    </div>
  );
}
