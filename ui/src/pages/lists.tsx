/**
 * Block lists: every BlockList with its sources and their status, adding
 * one by URL or typed rules, refresh now, a source on or off, delete; and
 * the "why" tool (name, type and client in the URL). While a list waits
 * for its status (just added, or changed) the page reads again every 2 s.
 */
import "./lists.css";
import { useEffect } from "preact/hooks";
import { ErrorBox } from "../components/error_box.tsx";
import { useApi } from "../components/use_api.ts";
import type { BlockList, Items } from "../lists_objects.ts";
import { readyCondition, sourceStatuses } from "../lists_sources.ts";
import { can } from "../session.ts";
import { strings } from "../strings.ts";
import { AddList } from "./lists/add_list.tsx";
import { ListCard } from "./lists/list_card.tsx";
import { WhyTool } from "./why.tsx";

const POLL_MS = 2000;

/** The list has no status for its current version yet. */
function waiting(list: BlockList): boolean {
  return readyCondition(list) === undefined ||
    sourceStatuses(list).some((s) => s === undefined);
}

export function ListsPage() {
  const t = strings.lists;
  const lists = useApi<Items<BlockList>>("blocklists");
  const items = [...(lists.data?.items ?? [])].sort((a, b) =>
    `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(
      `${b.metadata.namespace}/${b.metadata.name}`,
    )
  );
  const pending = items.some(waiting);
  useEffect(() => {
    if (!pending || lists.loading) return;
    const timer = setTimeout(lists.reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [pending, lists.loading, lists.data]);

  return (
    <>
      <h1>{t.title}</h1>
      <div class="grid lists-top">
        <WhyTool path="lists" />
        {can("blocklists", "create") && <AddList onAdded={lists.reload} />}
      </div>
      <section aria-labelledby="lists-heading" class="lists-all">
        <h2 id="lists-heading">{t.lists}</h2>
        <ErrorBox error={lists.error} onRetry={lists.reload} />
        {lists.data && items.length === 0 && <p class="muted">{t.none}</p>}
        {items.map((list) => (
          <ListCard
            key={`${list.metadata.namespace}/${list.metadata.name}`}
            list={list}
            onChanged={lists.reload}
          />
        ))}
      </section>
    </>
  );
}
