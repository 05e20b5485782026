/**
 * The identify stage (docs/design.md#stage-order): which ClientGroups the
 * client belongs to and which Policies apply to its query, read from the
 * snapshot's blocking data. Runs for every query, so the answer is memoised per
 * client; see README.md for the rules and when the memo is dropped.
 */
import type { Logger } from "../../log/logger.ts";
import type { BlockingSnapshot } from "../../blocking/blocking_snapshot.ts";
import type { Request } from "../../pipeline/request.ts";
import type { Next, Stage } from "../../pipeline/stage.ts";
import { decidePolicy } from "../../blocking/policy/decision.ts";
import {
  buildGroupIndex,
  type GroupIndex,
} from "../../blocking/policy/group_index.ts";
import { nextMinuteBoundary } from "../../blocking/policy/schedule.ts";
import { type Identity, IdentityMemo } from "./identity_memo.ts";
import { PtrCache, type ResolvePtr } from "./ptr_cache.ts";

/** The group of every client when the snapshot has no blocking data. */
export const DEFAULT_GROUP = "default";

// Shared by every such request; frozen so a stage that mutates it fails loudly.
const DEFAULT_GROUPS = Object.freeze([DEFAULT_GROUP]) as string[];

export interface IdentifyOptions {
  /**
   * Looks up a client's PTR name for `hostname` entries (see `ptrName` in
   * src/blocking/policy). Without it hostname entries match nothing.
   * Must settle: an address waits for its one lookup in flight.
   */
  resolvePtr?: (address: string) => Promise<string | null>;
  /**
   * The clock, for tests. By default a query is judged at its arrival
   * (`req.received`), which costs no clock read per query.
   */
  now?: () => number;
  /** For the index's diagnoses (prefix ties, entries that never match). */
  logger?: Logger;
  /** Clients remembered. @default 10_000 */
  memoEntries?: number;
}

/** What the stage derives once per BlockingSnapshot, on the first query that needs it. */
interface SnapshotState {
  index: GroupIndex;
  /** Any schedule makes decisions expire at the next minute boundary. */
  hasSchedules: boolean;
}

/** Creates the identify stage. */
export function createIdentifyStage(opts: IdentifyOptions = {}): Stage {
  const clock = opts.now;
  const memo = new IdentityMemo(opts.memoEntries);
  const ptr = opts.resolvePtr === undefined
    ? undefined
    : createPtrCache(opts.resolvePtr, clock ?? Date.now, memo, opts.logger);
  let memoFor: BlockingSnapshot | undefined;
  let state: SnapshotState | undefined;

  function stateFor(blocking: BlockingSnapshot): SnapshotState {
    if (state !== undefined) return state;
    const index = buildGroupIndex(blocking.groups);
    for (const diagnosis of index.diagnoses) {
      opts.logger?.warn("identify: client groups", { diagnosis });
    }
    if (index.needsHostnames && ptr === undefined) {
      opts.logger?.warn(
        "identify: ClientGroup hostname entries match nothing without a PTR resolver",
      );
    }
    return state = {
      index,
      hasSchedules: blocking.policies.some((p) => p.schedule !== undefined),
    };
  }

  function identify(
    blocking: BlockingSnapshot,
    address: string,
    clientId: string | undefined,
    at: number,
  ): Identity {
    const { index, hasSchedules } = stateFor(blocking);
    let hostname: string | null = null;
    let expires = Infinity;
    if (index.needsHostnames && ptr !== undefined) {
      const known = ptr.lookup(address);
      hostname = known.name;
      expires = known.until;
    }
    if (hasSchedules) expires = Math.min(expires, nextMinuteBoundary(at));
    const groups = Object.freeze(
      index.match(address, clientId, hostname),
    ) as string[];
    return { groups, policy: decidePolicy(groups, blocking, at), expires };
  }

  /**
   * Whether a memoised identity is due. Each branch compares on its own:
   * merging `req.received` and `clock()` into one value first would box the
   * number, an allocation per query.
   */
  function expired(expires: number, req: Request): boolean {
    if (expires === Infinity) return false;
    return clock === undefined ? req.received >= expires : clock() >= expires;
  }

  return {
    name: "identify",
    serve(req: Request, next: Next) {
      const blocking = req.snapshot?.blocking;
      if (blocking === undefined) {
        req.groups = DEFAULT_GROUPS;
        return next(req);
      }
      if (blocking !== memoFor) {
        memo.clear();
        memoFor = blocking;
        state = undefined;
      }
      const { address, clientId } = req.client;
      let identity = memo.get(address, clientId);
      if (identity === undefined || expired(identity.expires, req)) {
        const at = clock === undefined ? req.received : clock();
        identity = identify(blocking, address, clientId, at);
        memo.set(address, clientId, identity);
      }
      req.groups = identity.groups;
      req.policy = identity.policy;
      return next(req);
    },
  };
}

function createPtrCache(
  resolvePtr: ResolvePtr,
  now: () => number,
  memo: IdentityMemo,
  logger: Logger | undefined,
): PtrCache {
  return new PtrCache({
    resolvePtr,
    now,
    // The name may change the client's groups: work them out again.
    onResult: (address) => memo.forgetAddress(address),
    ...(logger !== undefined && { logger }),
  });
}
