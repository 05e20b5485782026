/**
 * The authoritative stage (docs/design.md#stage-order): answers names in
 * primary zones from the snapshot's zone index, and routes names in forward
 * zones to their upstream group. Encoded answers are memoised per snapshot.
 */
import { shortLivedCopy } from "../../dns/wire/short_lived_bytes.ts";
import { OPCODE, RCODE, TYPE } from "../../dns/wire/constants.ts";
import { encodeAnswer } from "../../pipeline/answer_encoding.ts";
import type { Request } from "../../pipeline/request.ts";
import { answer, replyTo, type Response } from "../../pipeline/response.ts";
import type { Snapshot } from "../../pipeline/snapshot.ts";
import { zoneIndexOf } from "../../pipeline/snapshot_zones.ts";
import type { Next, Stage } from "../../pipeline/stage.ts";
import type { ZoneIndex } from "../../zone/index.ts";
import { lookup } from "../../zone/lookup.ts";
import {
  DEFAULT_MEMO_BYTES,
  DEFAULT_MEMO_ENTRIES,
  type MemoStats,
  memoVariant,
  NameMemo,
  NO_ZONE,
  type ZoneRoute,
} from "./name_memo.ts";
import { QueryAccess } from "./query_access.ts";
import { type JournalLookup, zoneTransfer } from "./zone_transfer.ts";
import { journalReader } from "./journal_reader.ts";
import { notifyAnswer, UnavailableZones } from "./secondary_answers.ts";

export interface AuthoritativeOptions {
  /** Routes and encoded answers kept per snapshot. @default 100000 */
  memoEntries?: number;
  /** Estimated bytes they may take per snapshot. @default 64 MiB */
  memoBytes?: number;
  /** A NOTIFY from a secondary zone's primary was answered (zone_notify.ts). */
  onNotify?: (zone: string, from: string) => void;
}

/** The stage, plus its memo's counts for the current snapshot. */
export interface AuthoritativeStage extends Stage {
  memoStats(): MemoStats;
}

interface SnapshotState {
  snapshot: Snapshot;
  index: ZoneIndex;
  /** Encoded answers, and routes of names answered elsewhere. */
  memo: NameMemo;
  /** Zones' query access; undefined when anyone may ask any zone. */
  access: QueryAccess | undefined;
  /** The zone journal, for IXFR (one reader for the stage's life). */
  journals: JournalLookup;
  /** Zones not answered (SERVFAIL); undefined when all are. */
  unavailable: UnavailableZones | undefined;
}

/** Creates the authoritative stage. */
export function createAuthoritativeStage(
  opts: AuthoritativeOptions = {},
): AuthoritativeStage {
  const memoEntries = opts.memoEntries ?? DEFAULT_MEMO_ENTRIES;
  const memoBytes = opts.memoBytes ?? DEFAULT_MEMO_BYTES;
  let current: SnapshotState | undefined;
  const journals = journalReader();

  /**
   * The index and memo of `snapshot`, built on first use after a swap. A
   * query still in flight from an older snapshot gets a throwaway state, so
   * it neither reads the newer one nor evicts it.
   */
  function stateFor(snapshot: Snapshot): SnapshotState {
    if (current?.snapshot === snapshot) return current;
    const index = zoneIndexOf(snapshot);
    const state: SnapshotState = {
      snapshot,
      index,
      memo: new NameMemo(memoEntries, memoBytes),
      access: QueryAccess.of(index),
      journals,
      unavailable: UnavailableZones.of(index),
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
      bytes: current?.memo.bytes ?? 0,
    }),
    serve(req: Request, next: Next) {
      // Before the first snapshot we cannot tell our names from others, and
      // NXDOMAIN or REFUSED for a name we serve would be cached downstream:
      // SERVFAIL makes resolvers retry
      // (docs/design.md#before-the-first-snapshot). It sits here, not in
      // ingress, because only the stages that need zone data (local passes
      // special names on for the same reason) reach it.
      if (req.snapshot === undefined) {
        return answer(req, "authoritative", "servfail", RCODE.SERVFAIL);
      }
      if (req.query.question === undefined) return next(req);
      if (req.query.opcode === OPCODE.NOTIFY) {
        return notifyAnswer(stateFor(req.snapshot).index, req, opts.onNotify);
      }
      return serveFrom(stateFor(req.snapshot), req, next);
    },
  };
}

function serveFrom(
  state: SnapshotState,
  req: Request,
  next: Next,
): Promise<Response> | Response {
  const qtype = req.query.question!.type;
  if (qtype === TYPE.AXFR || qtype === TYPE.IXFR) {
    return zoneTransfer(state.index, req, state.journals);
  }
  // A secondary zone with no copy to serve: SERVFAIL, never NXDOMAIN.
  if (state.unavailable !== undefined) {
    const refusal = state.unavailable.answer(req);
    if (refusal !== undefined) return refusal;
  }
  // Before the memo: its answers do not depend on who asks.
  if (state.access !== undefined) {
    const refusal = state.access.refusal(req);
    if (refusal !== undefined) return refusal;
  }
  // Most queries of a resolver are for names no primary zone holds: their
  // route is known from an earlier query, found with the name's answers.
  const facts = state.memo.lookup(req.qname);
  if (facts?.route !== undefined && qtype !== TYPE.DS) {
    return passOn(facts.route, req, next);
  }
  const variant = memoVariant(req);
  const hit = facts === undefined || variant === undefined
    ? undefined
    : state.memo.answer(facts, variant, req);
  if (hit !== undefined) return authoritativeWire(hit.wire, hit.stored);
  const found = lookup(state.index, req.qname, qtype);
  if (found === undefined || found.kind === "forward") {
    const route = found === undefined ? NO_ZONE : {
      zone: found.zone,
      upstreamGroup: found.upstreamGroup,
    };
    if (qtype !== TYPE.DS) state.memo.keepRoute(req.qname, facts, route);
    return passOn(route, req, next);
  }
  req.zone = found.zone;
  // Seam: with chainLeftLocalZones and RD set, the upstream stage will
  // continue the CNAME chain; until then we answer what the zone holds.
  const wire = encodeAnswer(
    req,
    replyTo(req, found.rcode, {
      aa: found.aa,
      answer: found.answer,
      authority: found.authority,
      additional: found.additional,
      ...(found.requiredAdditional !== undefined &&
        { requiredAdditional: found.requiredAdditional }),
    }),
  );
  if (variant !== undefined) {
    state.memo.keepAnswer(req.qname, facts, variant, wire);
  }
  // The memo keeps the original.
  return authoritativeWire(
    shortLivedCopy(wire),
    variant === undefined ? undefined : wire,
  );
}

/** Hands a name that no primary zone answers on, with its forward zone's group. */
function passOn(
  route: ZoneRoute,
  req: Request,
  next: Next,
): Promise<Response> | Response {
  if (route.zone !== undefined) req.zone = route.zone;
  if (route.upstreamGroup !== undefined) {
    req.upstreamGroup = route.upstreamGroup;
  }
  return next(req);
}

function authoritativeWire(wire: Uint8Array, source?: Uint8Array): Response {
  const res: Response = {
    wire,
    status: "authoritative",
    stage: "authoritative",
    cacheable: false,
  };
  if (source !== undefined) res.wireSource = source;
  return res;
}
