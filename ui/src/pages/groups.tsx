/**
 * Client groups and policies: each group with its members and what a
 * client in it gets now; each policy with its lists, priority, schedule
 * and answer, and its editor (the URL's `policy=<namespace>/<name>` keeps
 * it open). New groups and policies by name.
 */
import "./lists.css";
import "./groups.css";
import { ErrorBox } from "../components/error_box.tsx";
import { useApi } from "../components/use_api.ts";
import {
  type BlockList,
  type ClientGroup,
  DEFAULT_NAMESPACE,
  type Items,
  namesIn,
  type Policy,
  qualifiedName,
} from "../lists_objects.ts";
import { href, navigate, route } from "../router.ts";
import { can } from "../session.ts";
import { strings } from "../strings.ts";
import { GroupCard } from "./groups/group_card.tsx";
import { NewObject } from "./groups/new_object.tsx";
import { PolicyCard } from "./groups/policy_card.tsx";

interface Config {
  config?: { upstreams?: { groups?: Record<string, unknown> } };
}

const byName = (a: { metadata: { namespace?: string; name: string } }, b: {
  metadata: { namespace?: string; name: string };
}) =>
  `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(
    `${b.metadata.namespace}/${b.metadata.name}`,
  );

export function GroupsPage() {
  const t = strings.groups;
  const editing = route.value.params.get("policy") ?? "";
  const groups = useApi<Items<ClientGroup>>("clientgroups");
  const policies = useApi<Items<Policy> & { resourceVersion?: string }>(
    "policies",
  );
  const lists = useApi<Items<BlockList>>(
    can("blocklists", "list") ? "blocklists" : undefined,
  );
  const config = useApi<Config>(can("config", "get") ? "config" : undefined);
  const upstreamGroups = Object.keys(
    config.data?.config?.upstreams?.groups ?? {},
  ).sort();
  const groupItems = [...(groups.data?.items ?? [])].sort(byName);
  const policyItems = [...(policies.data?.items ?? [])].sort(byName);
  const reloadAll = () => {
    groups.reload();
    policies.reload();
  };
  const edit = (policy: Policy | undefined) =>
    navigate(
      href("groups", { policy: policy && qualifiedName(policy) }),
      { replace: true },
    );

  return (
    <>
      <h1>{t.title}</h1>
      <section aria-labelledby="groups-heading" class="groups-section">
        <h2 id="groups-heading">{t.groups}</h2>
        <ErrorBox error={groups.error} onRetry={groups.reload} />
        {groups.data && groupItems.length === 0 && (
          <p class="muted">{t.noGroups}</p>
        )}
        {groupItems.map((group) => (
          <GroupCard
            key={qualifiedName(group)}
            group={group}
            stamp={policyStamp(policyItems)}
            onChanged={reloadAll}
          />
        ))}
        {can("clientgroups", "create") && (
          <NewObject
            plural="clientgroups"
            kind="ClientGroup"
            title={t.newGroup}
            submit={t.createGroup}
            spec={{ clients: [] }}
            onCreated={groups.reload}
          />
        )}
      </section>
      <section aria-labelledby="policies-heading" class="groups-section">
        <h2 id="policies-heading">{t.policies}</h2>
        <ErrorBox error={policies.error} onRetry={policies.reload} />
        {policies.data && policyItems.length === 0 && (
          <p class="muted">{t.noPolicies}</p>
        )}
        {policyItems.map((policy) => {
          const ns = policy.metadata.namespace ?? DEFAULT_NAMESPACE;
          return (
            <PolicyCard
              key={qualifiedName(policy)}
              policy={policy}
              choices={{
                groups: namesIn(groups.data?.items ?? [], ns),
                lists: namesIn(lists.data?.items ?? [], ns),
                upstreamGroups,
              }}
              editing={editing === qualifiedName(policy)}
              onEdit={(open) => edit(open ? policy : undefined)}
              onChanged={reloadAll}
            />
          );
        })}
        {can("policies", "create") && (
          <NewObject
            plural="policies"
            kind="Policy"
            title={t.newPolicy}
            submit={t.createPolicy}
            spec={{}}
            onCreated={(made) => {
              policies.reload();
              if (can("policies", "update")) edit(made as Policy);
            }}
          />
        )}
      </section>
    </>
  );
}

/** Changes whenever a policy does: what groups get now depends on them. */
function policyStamp(policies: readonly Policy[]): string {
  return policies.map((p) => p.metadata.resourceVersion ?? "").join(",");
}
