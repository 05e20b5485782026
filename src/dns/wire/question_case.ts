/**
 * Stored answers (the authoritative memo, the cache) are served to clients
 * who wrote the question in another case; 0x20 randomisation needs the
 * answer's question in the client's case, so hits copy it back in.
 */
import { HEADER_OCTETS } from "./query.ts";

/**
 * Copies the question name's octets `query[12..nameEnd)` into `answer`,
 * where the answer's question name starts at the same offset. False when
 * the two names differ other than in ASCII case (`answer` is then partly
 * patched and must be thrown away).
 */
export function patchQuestionCase(
  answer: Uint8Array,
  query: Uint8Array,
  nameEnd: number,
): boolean {
  if (nameEnd > answer.length || nameEnd > query.length) return false;
  for (let i = HEADER_OCTETS; i < nameEnd; i++) {
    const octet = query[i]!;
    if (foldCase(answer[i]!) !== foldCase(octet)) return false;
    answer[i] = octet;
  }
  return true;
}

function foldCase(octet: number): number {
  return octet >= 0x41 && octet <= 0x5a ? octet | 0x20 : octet;
}
