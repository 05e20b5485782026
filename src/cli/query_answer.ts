/**
 * Decodes the answer `kudurru query` received into what it prints: header
 * flags, the sections in presentation format, the OPT record and its
 * Extended DNS Errors (RFC 8914), and the explanation of kudurru's own
 * EDE texts (`blocked by <list>`, set by src/stages/blocking/). A client
 * that shows answers to people must not throw on odd ones, so record data
 * it cannot read is shown in the generic form of RFC 3597 instead.
 */
import { extendedErrorName } from "../dns/wire/extended_error.ts";
import { HEADER_FLAG, TYPE, typeName } from "../dns/wire/constants.ts";
import { rcodeName } from "../dns/wire/rcode_name.ts";
import { readName } from "../dns/wire/read_name.ts";
import { readRdata } from "../dns/wire/rdata_read.ts";
import { WireFormatError } from "../dns/wire/wire_format_error.ts";
import { formatRdata } from "../zone/format.ts";
import { hexOf } from "../dns/hex.ts";

/** One resource record, as dig prints it. */
export interface AnswerRecord {
  name: string;
  ttl: number;
  class: string;
  type: string;
  /** The record data in presentation format. */
  data: string;
}

/** One Extended DNS Error option (RFC 8914 §2). */
export interface ExtendedError {
  code: number;
  /** The INFO-CODE's name in the IANA registry, such as "Blocked". */
  name: string;
  text: string;
}

/** The OPT pseudo-record (RFC 6891 §6.1.3). */
export interface EdnsInfo {
  version: number;
  udpSize: number;
  /** "do" when the DNSSEC OK bit is set. */
  flags: string[];
}

/** A decoded answer. */
export interface DecodedAnswer {
  id: number;
  opcode: string;
  /** The RCODE's name, extended by the OPT record's upper bits. */
  rcode: string;
  flags: string[];
  question: { name: string; class: string; type: string }[];
  answer: AnswerRecord[];
  authority: AnswerRecord[];
  /** Without the OPT record, which is {@linkcode DecodedAnswer.edns}. */
  additional: AnswerRecord[];
  edns?: EdnsInfo;
  extendedErrors: ExtendedError[];
}

/** Why the answer is what it is, read from kudurru's EDE texts. */
export type Explanation =
  | { kind: "blocked"; list: string; rule?: string }
  | { kind: "filtered"; policy: string }
  | { kind: "extended-error"; code: number; name: string; text: string }
  | { kind: "answered"; rcode: string };

const OPCODES = ["QUERY", "IQUERY", "STATUS", "OPCODE3", "NOTIFY", "UPDATE"];
const CLASSES: Record<number, string> = {
  1: "IN",
  3: "CH",
  4: "HS",
  255: "ANY",
};

const EDE_BLOCKED = 15;
const EDE_FILTERED = 17;
const EDE_OPTION = 15;
const HEADER_OCTETS = 12;
/** Type, class, TTL and RDLENGTH after an owner name. */
const RR_FIXED_OCTETS = 10;

const decoder = new TextDecoder();

/**
 * Decodes a whole response message.
 *
 * @throws {WireFormatError} when the header, the question or a record's
 *   framing is malformed (record data alone falls back to RFC 3597 form)
 */
export function decodeAnswer(wire: Uint8Array): DecodedAnswer {
  if (wire.length < HEADER_OCTETS) {
    throw new WireFormatError("shorter than a header");
  }
  const u16 = (at: number) => {
    if (at + 2 > wire.length) throw new WireFormatError("message cut short");
    return (wire[at]! << 8) | wire[at + 1]!;
  };
  const bits = u16(2);
  const counts = [u16(4), u16(6), u16(8), u16(10)] as const;
  const out: DecodedAnswer = {
    id: u16(0),
    opcode: OPCODES[(bits & HEADER_FLAG.OPCODE_MASK) >> 11] ??
      `OPCODE${(bits & HEADER_FLAG.OPCODE_MASK) >> 11}`,
    rcode: "",
    flags: headerFlags(bits),
    question: [],
    answer: [],
    authority: [],
    additional: [],
    extendedErrors: [],
  };
  let rcode = bits & HEADER_FLAG.RCODE_MASK;
  let pos = HEADER_OCTETS;
  for (let i = 0; i < counts[0]; i++) {
    const { name, end } = readName(wire, pos);
    out.question.push({
      name,
      type: typeName(u16(end)),
      class: className(u16(end + 2)),
    });
    pos = end + 4;
  }
  const sections = [out.answer, out.authority, out.additional];
  for (let s = 0; s < 3; s++) {
    for (let i = 0; i < counts[s + 1]!; i++) {
      const { name, end } = readName(wire, pos);
      const type = u16(end);
      const klass = u16(end + 2);
      const ttl = ((u16(end + 4) << 16) | u16(end + 6)) >>> 0;
      const rdlength = u16(end + 8);
      const start = end + RR_FIXED_OCTETS;
      pos = start + rdlength;
      if (pos > wire.length) throw new WireFormatError("record cut short");
      if (type === TYPE.OPT && s === 2) {
        // The OPT "TTL" holds the RCODE's upper bits, version and DO.
        rcode |= (ttl >>> 24) << 4;
        out.edns = {
          version: (ttl >>> 16) & 0xff,
          udpSize: klass,
          flags: ttl & 0x8000 ? ["do"] : [],
        };
        out.extendedErrors.push(...extendedErrors(wire, start, pos));
        continue;
      }
      sections[s]!.push({
        name,
        ttl,
        class: className(klass),
        type: typeName(type),
        data: rdataText(wire, type, start, pos),
      });
    }
  }
  out.rcode = rcodeName(rcode);
  return out;
}

/**
 * What kudurru's EDE says about the answer: `blocked by <list>` (code 15)
 * and `not on an allow list of allow-only policy <key>` (code 17) are the
 * texts of src/stages/blocking/blocking_stage.ts; any other EDE is shown as
 * it came, and without one the RCODE is all there is to say.
 */
export function explain(answer: DecodedAnswer): Explanation {
  for (const ede of answer.extendedErrors) {
    if (ede.code === EDE_BLOCKED) {
      const m = /^blocked by (.+?)(?:: (.+))?$/.exec(ede.text);
      if (m) {
        return m[2] === undefined
          ? { kind: "blocked", list: m[1]! }
          : { kind: "blocked", list: m[1]!, rule: m[2] };
      }
    }
    if (ede.code === EDE_FILTERED) {
      const m = /^not on an allow list of allow-only policy (.+)$/.exec(
        ede.text,
      );
      if (m) return { kind: "filtered", policy: m[1]! };
    }
  }
  const first = answer.extendedErrors[0];
  if (first !== undefined) {
    return { kind: "extended-error", ...first };
  }
  return { kind: "answered", rcode: answer.rcode };
}

function headerFlags(bits: number): string[] {
  const names: [number, string][] = [
    [HEADER_FLAG.QR, "qr"],
    [HEADER_FLAG.AA, "aa"],
    [HEADER_FLAG.TC, "tc"],
    [HEADER_FLAG.RD, "rd"],
    [HEADER_FLAG.RA, "ra"],
    [HEADER_FLAG.AD, "ad"],
    [HEADER_FLAG.CD, "cd"],
  ];
  return names.filter(([mask]) => (bits & mask) !== 0).map(([, n]) => n);
}

function className(code: number): string {
  return CLASSES[code] ?? `CLASS${code}`;
}

/** Record data in presentation format, or `\# len hex` when unreadable. */
function rdataText(
  wire: Uint8Array,
  type: number,
  start: number,
  end: number,
): string {
  try {
    return formatRdata(readRdata(type, wire, start, end, true));
  } catch (error) {
    if (!(error instanceof WireFormatError)) throw error;
    const data = wire.subarray(start, end);
    return `\\# ${data.length}${
      data.length > 0 ? " " + hexOf(data).toUpperCase() : ""
    }`;
  }
}

/** The EDE options among the OPT record's options; others are skipped. */
function extendedErrors(
  wire: Uint8Array,
  start: number,
  end: number,
): ExtendedError[] {
  const found: ExtendedError[] = [];
  for (let at = start; at + 4 <= end;) {
    const code = (wire[at]! << 8) | wire[at + 1]!;
    const length = (wire[at + 2]! << 8) | wire[at + 3]!;
    const data = at + 4;
    at = data + length;
    if (at > end) break;
    if (code !== EDE_OPTION || length < 2) continue;
    const info = (wire[data]! << 8) | wire[data + 1]!;
    found.push({
      code: info,
      name: extendedErrorName(info),
      text: decoder.decode(wire.subarray(data + 2, at)),
    });
  }
  return found;
}
