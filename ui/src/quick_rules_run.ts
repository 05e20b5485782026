/**
 * Runs the writes quick_rules.ts plans, each with If-Match, and undoes
 * what ran: the page's side of a one-click block or allow.
 */
import { get, request } from "./api.ts";
import {
  type ListObject,
  plan,
  type PolicyObject,
  type QuickAction,
  type QuickScope,
  type Write,
} from "./quick_rules.ts";

/**
 * An undo, ready to send, with the generation our write left: the object's
 * status changes its resourceVersion (a list's fetch, say) but not its
 * generation, so the undo goes ahead while nobody else changed its spec.
 */
export type Undo = Omit<Write, "undo" | "ifMatch"> & { generation?: number };

type Stored = { metadata?: { resourceVersion?: string; generation?: number } };

export interface QuickResult {
  /** Undoes, newest first. */
  undo: Undo[];
  /** Set when a write failed; `undo` holds what ran before it. */
  error?: unknown;
  /** No policy applies to the group: nothing was written. */
  noPolicy?: boolean;
}

const send = (w: Omit<Write, "undo">) =>
  request<Stored>(w.method, w.path, {
    ...(w.body !== undefined && { body: w.body }),
    ...(w.ifMatch !== undefined && { ifMatch: w.ifMatch }),
    ...(w.method === "PATCH" && {
      contentType: "application/merge-patch+json",
    }),
  });

export async function quickRule(
  domain: string,
  action: QuickAction,
  scope: QuickScope,
): Promise<QuickResult> {
  const [lists, policies] = await Promise.all([
    get<{ items: ListObject[] }>("blocklists"),
    get<{ items: PolicyObject[] }>("policies"),
  ]);
  const writes = plan(domain, action, scope, lists.items, policies.items);
  if (writes === undefined) return { undo: [], noPolicy: true };
  const undo: Undo[] = [];
  for (const write of writes) {
    try {
      const answer = await send(write);
      const generation = answer?.metadata?.generation;
      undo.unshift({
        ...write.undo,
        ...(generation !== undefined && { generation }),
      });
    } catch (error) {
      return { undo, error };
    }
  }
  return { undo };
}

/**
 * Runs `undo` in order; stops at the first failure and throws it, or at an
 * object someone changed since (its generation moved on).
 */
export async function undoQuickRule(undo: readonly Undo[]): Promise<void> {
  for (const { generation, ...write } of undo) {
    const now = await get<Stored>(write.path);
    if (generation !== undefined && now.metadata?.generation !== generation) {
      throw new Error(
        `api/v1/${write.path} was changed since; undo the rest by hand`,
      );
    }
    const version = now.metadata?.resourceVersion;
    await send({
      ...write,
      ...(version !== undefined && { ifMatch: version }),
    });
  }
}
