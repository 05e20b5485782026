/**
 * Asks one server every corpus query and keeps the normalised answers, so a
 * test can compare servers query by query.
 */
import { query } from "../../src/testing/dns_client.ts";
import {
  type NormalizedResponse,
  type NormalizeOptions,
  normalizeResponse,
} from "./compare.ts";
import type { CorpusQuery } from "./corpus.ts";
import { hasIpv6Loopback } from "../../src/testing/free_port.ts";

/** A normalised answer, or why there was none. */
export type CorpusAnswer = NormalizedResponse | { error: string };

/** True for queries this machine can send (::1 may be missing). */
export function canSend(q: CorpusQuery): boolean {
  return q.opts?.address !== "::1" || hasIpv6Loopback();
}

/** Sends one corpus query; a timeout or socket error becomes `{ error }`. */
export async function askCorpusQuery(
  port: number,
  q: CorpusQuery,
  opts: NormalizeOptions = {},
): Promise<CorpusAnswer> {
  try {
    const reply = await query(port, q.qname, q.qtype, q.opts ?? {});
    return normalizeResponse(reply, opts);
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Renders an answer for assertion messages. */
export function showAnswer(answer: CorpusAnswer): string {
  return JSON.stringify(answer, null, 2);
}
