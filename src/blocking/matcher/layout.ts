/**
 * The compiled layout of one list (CompiledListData.data) and the constants
 * both sides of it share: the compiler writes it, the matcher reads it in any
 * thread.
 *
 * Exact and suffix rules live in one open-addressing hash table of name
 * nodes. A node is one label under a parent node ("ads" under "example"
 * under "com"), so a name costs only its leftmost label in bytes and shares
 * its parents with its siblings. Each slot is four Int32 words (Int32, not
 * Uint32: V8 keeps int32 loads in registers, large uint32 become doubles):
 *
 *   [0] parent slot (ROOT for a top-level label)
 *   [1] label length (6 bits, 1..63; 0 = empty slot) | rule fields << 6
 *   [2] label characters 0-3, packed little-endian, zero-padded
 *   [3] characters 4-7 the same way when the label has at most 8; else the
 *       offset in `labels` of its characters from the 5th on
 *
 * Short labels (most of them: TLDs, "www", most registrable names) are
 * compared inside the slot, so a probe costs one cache line, not two.
 * The rule fields are 8 fields of 3 bits: field (kind * 4 + role) holds the
 * syntax code of the first rule of that kind and role on this node (0: none).
 * Both tables are SharedArrayBuffers, so posting the data to a Worker shares
 * them instead of copying (docs/design.md#threads).
 */

import type { RuleSyntax } from "../types.ts";

/** Bumped when the layout changes; part of every digest. */
export const LAYOUT_FORMAT = "kudurru-matcher/2";

/** Int32 words per slot. */
export const SLOT_WORDS = 4;
/** Labels up to this length live entirely in their slot. */
export const INLINE_LABEL = 8;
/** Parent value of top-level labels (never a slot index). */
export const ROOT = -1;
/** DNS labels are at most 63 bytes, which fits the 6 bits of the length. */
export const MAX_LABEL = 63;
export const LEN_BITS = 6;
export const LEN_MASK = (1 << LEN_BITS) - 1;
/** Textual names are at most 253 characters without the trailing dot. */
export const MAX_NAME = 253;
/** The largest capacity the hash-to-slot reduction handles exactly. */
export const MAX_CAPACITY = 1 << 28;
/** Slots per node of the final table: 0.7 load keeps probe runs short. */
export const FINAL_LOAD = 0.7;

/** Rule kinds as stored in a node (regex rules live elsewhere). */
export const KIND_EXACT = 0;
export const KIND_SUFFIX = 1;

/** A rule's role within its list. */
export const ROLE_BLOCK = 0;
export const ROLE_IMPORTANT = 1;
export const ROLE_EXCEPTION = 2;
export const ROLE_EXCEPTION_IMPORTANT = 3;

/** The role of a rule from its flags. */
export function roleOf(exception: boolean, important: boolean): number {
  return (exception ? 2 : 0) + (important ? 1 : 0);
}

/** Syntax codes (3 bits; 0 means "no rule"). */
export const SYNTAX_CODES: Record<RuleSyntax, number> = {
  domain: 1,
  hosts: 2,
  adblock: 3,
  wildcard: 4,
  regex: 5,
};
export const SYNTAX_REGEX = 5;

/** Bit shift of a rule field inside the flags (the word minus the length). */
export function fieldShift(kind: number, role: number): number {
  return (kind * 4 + role) * 3;
}

/** The regex rules of a list: plain arrays, copied when posted (≤ the cap). */
export interface RegexData {
  /** Expression sources, in arrival order (the id is the index). */
  sources: string[];
  /** The role of each expression. */
  roles: number[];
  /**
   * The packed 3- or 4-character literal every match of the expression
   * contains (char codes, first char in the high byte), or 0 when it has none.
   */
  keys: number[];
  /** 4, 3, or 0 (unindexed) per expression. */
  keyLengths: number[];
}

/** CompiledListData.data of this matcher. */
export interface MatcherData {
  format: typeof LAYOUT_FORMAT;
  /** Seed of the node hash (random per compile: lists are untrusted input). */
  seed: number;
  /** Slots in `slots` (its buffer may be larger: buffers.ts). */
  capacity: number;
  /** Nodes stored (rules plus the parents they share). */
  nodes: number;
  slots: SharedArrayBuffer;
  labels: SharedArrayBuffer;
  /** Bytes of `labels` in use (the buffer may be larger: buffers.ts). */
  labelBytes: number;
  regex: RegexData | null;
}

/** Packs up to 4 characters of text[start, start + count) little-endian. */
export function packChars(text: string, start: number, count: number): number {
  let word = 0;
  for (let k = 0; k < count; k++) word |= text.charCodeAt(start + k) << (k * 8);
  return word;
}

/** The label stored in `slot` (tests and diagnostics; the matcher compares in place). */
export function labelOfSlot(
  slots: Int32Array,
  labels: Uint8Array,
  slot: number,
): string {
  const base = slot * SLOT_WORDS;
  const length = slots[base + 1]! & LEN_MASK;
  let text = "";
  for (let k = 0; k < length; k++) {
    const code = k < 4
      ? slots[base + 2]! >>> (k * 8)
      : length <= INLINE_LABEL
      ? slots[base + 3]! >>> ((k - 4) * 8)
      : labels[slots[base + 3]! + k - 4]!;
    text += String.fromCharCode(code & 0xff);
  }
  return text;
}

/** Checks that `data` is this matcher's layout; throws a clear error if not. */
export function asMatcherData(data: unknown): MatcherData {
  const d = data as Partial<MatcherData> | null;
  const ok = d !== null && typeof d === "object" &&
    d.format === LAYOUT_FORMAT &&
    typeof d.seed === "number" &&
    typeof d.capacity === "number" && d.capacity >= 1 &&
    d.capacity <= MAX_CAPACITY &&
    d.slots instanceof SharedArrayBuffer &&
    d.slots.byteLength >= d.capacity * SLOT_WORDS * 4 && // larger: buffers.ts
    d.labels instanceof SharedArrayBuffer &&
    typeof d.labelBytes === "number" && d.labels.byteLength >= d.labelBytes &&
    (d.regex === null || isRegexData(d.regex));
  if (!ok) {
    throw new TypeError(
      `not compiled list data of ${LAYOUT_FORMAT} (compile it with compileRules)`,
    );
  }
  return d as MatcherData;
}

function isRegexData(r: unknown): r is RegexData {
  const x = r as Partial<RegexData> | undefined;
  return x !== undefined && Array.isArray(x.sources) &&
    Array.isArray(x.roles) && x.roles.length === x.sources.length &&
    Array.isArray(x.keys) && x.keys.length === x.sources.length &&
    Array.isArray(x.keyLengths) && x.keyLengths.length === x.sources.length;
}
