/**
 * Coalesced questions: N identical questions in flight make one trip
 * upstream, and each asker gets the answer made out for itself (its ID,
 * its question case, its OPT record and size limit).
 */
import { patchQuestionCase } from "../../dns/wire/question_case.ts";
import { patchId } from "../../dns/wire/response.ts";
import type { Request } from "../../pipeline/request.ts";
import type { Response } from "../../pipeline/response.ts";
import { type CacheEntry, readAnswer } from "./cache_entry.ts";
import { writeCachedAnswer } from "./entry_answer.ts";

/** What one trip upstream produced: the answer, and the entry made of it if stored. */
export interface Outcome {
  res: Response;
  entry: CacheEntry | undefined;
}

/**
 * The leader's answer made out for `req`, another asker of the same
 * question. Status, stage and upstream are the leader's: the answer came
 * from that trip, not from the cache.
 */
export function waiterResponse(o: Outcome, req: Request): Response {
  const { res } = o;
  if (res.wire !== undefined) {
    const wire = rewriteWire(o, req);
    return wire === undefined ? res : { ...res, wire };
  }
  if (res.message !== undefined) {
    // The handler copies ID, question and EDNS from `req` when it encodes.
    return { ...res, message: { ...res.message, id: req.query.id } };
  }
  return res;
}

function rewriteWire(o: Outcome, req: Request): Uint8Array | undefined {
  if (o.entry !== undefined) return writeCachedAnswer(o.entry, req, 0);
  const wire = o.res.wire!;
  const read = readAnswer(wire, req);
  if (read !== undefined) {
    const { clientSubnet } = o.res;
    const stored = clientSubnet === undefined
      ? read.stored
      : { ...read.stored, clientSubnet };
    const made = writeCachedAnswer(stored, req, 0);
    if (made !== undefined) return made;
  }
  // Not a message we can take apart: at least the ID and case are ours.
  const copy = patchId(wire, req.query.id);
  return patchQuestionCase(copy, req.bytes, req.query.questionEnd - 4)
    ? copy
    : undefined;
}
