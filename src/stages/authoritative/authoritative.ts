/**
 * The authoritative stage (seed §7.1 step 6): answers names in primary
 * zones from the snapshot's zone index, and routes names in forward zones to
 * their upstream group. Encoded answers are memoised per snapshot.
 */
import { RCODE } from "../../dns/wire/mod.ts";
import {
  answer,
  encodeAnswer,
  type Next,
  replyTo,
  type Request,
  type Response,
  type Snapshot,
  type Stage,
} from "../../pipeline/mod.ts";
import { buildZoneIndex, lookup, type ZoneIndex } from "../../zone/mod.ts";
import {
  AnswerMemo,
  DEFAULT_MEMO_ENTRIES,
  memoKey,
  type MemoStats,
} from "./answer_memo.ts";

export interface AuthoritativeOptions {
  /** Encoded answers kept per snapshot. @default 100000 */
  memoEntries?: number;
}

/** The stage, plus its memo's counts for the current snapshot. */
export interface AuthoritativeStage extends Stage {
  memoStats(): MemoStats;
}

interface SnapshotState {
  snapshot: Snapshot;
  index: ZoneIndex;
  memo: AnswerMemo;
}

/** Creates the authoritative stage. */
export function createAuthoritativeStage(
  opts: AuthoritativeOptions = {},
): AuthoritativeStage {
  const memoEntries = opts.memoEntries ?? DEFAULT_MEMO_ENTRIES;
  let current: SnapshotState | undefined;

  /**
   * The index and memo of `snapshot`, built on first use after a swap. A
   * query still in flight from an older snapshot gets a throwaway state, so
   * it neither reads the newer one nor evicts it.
   */
  function stateFor(snapshot: Snapshot): SnapshotState {
    if (current?.snapshot === snapshot) return current;
    const state: SnapshotState = {
      snapshot,
      index: buildZoneIndex(snapshot.zones, snapshot.forwardZones),
      memo: new AnswerMemo(memoEntries),
    };
    if (current === undefined || snapshot.version >= current.snapshot.version) {
      current = state;
    }
    return state;
  }

  return {
    name: "authoritative",
    memoStats: () => ({
      hits: current?.memo.hits ?? 0,
      misses: current?.memo.misses ?? 0,
      entries: current?.memo.size ?? 0,
    }),
    serve(req: Request, next: Next) {
      // Before the first snapshot we cannot tell our names from others, and
      // NXDOMAIN or REFUSED for a name we serve would be cached downstream:
      // SERVFAIL makes resolvers retry (ARCHITECTURE.md §4). It sits here,
      // not in ingress, because only the stages that need zone data
      // (local passes special names on for the same reason) reach it.
      if (req.snapshot === undefined) {
        return answer(req, "authoritative", "servfail", RCODE.SERVFAIL);
      }
      if (req.query.question === undefined) return next(req);
      return serveFrom(stateFor(req.snapshot), req, next);
    },
  };
}

function serveFrom(
  state: SnapshotState,
  req: Request,
  next: Next,
): Promise<Response> | Response {
  const key = memoKey(req);
  const hit = key === undefined ? undefined : state.memo.get(key, req);
  if (hit !== undefined) return authoritativeWire(hit);
  const found = lookup(state.index, req.qname, req.query.question!.type);
  if (found === undefined) return next(req); // no zone covers the name
  req.zone = found.zone;
  if (found.kind === "forward") {
    if (found.upstreamGroup !== undefined) {
      req.upstreamGroup = found.upstreamGroup;
    }
    return next(req);
  }
  // Seam: with chainLeftLocalZones and RD set, the upstream stage will
  // continue the CNAME chain; until then we answer what the zone holds.
  const wire = encodeAnswer(
    req,
    replyTo(req, found.rcode, {
      aa: found.aa,
      answer: found.answer,
      authority: found.authority,
      additional: found.additional,
    }),
  );
  if (key !== undefined) state.memo.set(key, wire);
  return authoritativeWire(wire.slice()); // the memo keeps the original
}

function authoritativeWire(wire: Uint8Array): Response {
  return {
    wire,
    status: "authoritative",
    stage: "authoritative",
    cacheable: false,
  };
}
