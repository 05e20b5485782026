/**
 * Test fixtures for the blocking stage: rules from the short notation of
 * adblock lists, snapshots and decisions, requests that carry them, and
 * upstream answers as `wire` or as `message`, their records in the order
 * written (chains stay chains).
 */
import type { RuleInput } from "../../../blocking/types.ts";
import { parseRdata } from "../../../dns/rdata_text.ts";
import { RCODE, typeFromName } from "../../../dns/wire/constants.ts";
import {
  encodeResponse,
  type ResponseSpec,
} from "../../../dns/wire/response.ts";
import type {
  BlockingSnapshot,
  BlockResponse,
  PolicyDecision,
} from "../../../blocking/blocking_snapshot.ts";
import type { Request } from "../../../pipeline/request.ts";
import type { Response } from "../../../pipeline/response.ts";
import type { Status } from "../../../pipeline/status.ts";
import {
  requestFor,
  type RequestOptions,
  snapshotOf,
} from "../../../testing/fixtures.ts";
import type { RRSet } from "../../../dns/rrset.ts";

/**
 * Rules from lines: `||x^` (suffix), `@@||x^` (exception), `||x^$important`,
 * `/re/` (regex), anything else an exact domain or IP.
 */
export function rules(...lines: string[]): RuleInput[] {
  return lines.map((line) => {
    const exception = line.startsWith("@@");
    let text = exception ? line.slice(2) : line;
    const important = text.endsWith("$important");
    if (important) text = text.slice(0, -"$important".length);
    if (text.startsWith("||") && text.endsWith("^")) {
      const pattern = text.slice(2, -1);
      return {
        kind: "suffix",
        pattern,
        syntax: "adblock",
        exception,
        important,
      };
    }
    if (text.startsWith("/") && text.endsWith("/")) {
      return {
        kind: "regex",
        pattern: text.slice(1, -1),
        syntax: "regex",
        exception,
        important,
      };
    }
    return {
      kind: "exact",
      pattern: text,
      syntax: "domain",
      exception,
      important,
    };
  });
}

/** The server's default answer in these tests: zeroIP, 10 minutes. */
export const ZERO_IP: BlockResponse = {
  mode: "zeroIP",
  customIPs: [],
  ttl: 600,
};

/** A decision; unset fields block nothing. */
export function decision(
  partial: Partial<PolicyDecision> = {},
): PolicyDecision {
  return {
    policies: ["default/default"],
    blockLists: [],
    allowLists: [],
    allowOnly: false,
    response: ZERO_IP,
    queryLog: true,
    ...partial,
  };
}

/** A blocking snapshot holding `lists`. */
export function blockingOf(
  lists: BlockingSnapshot["lists"],
  extra: Partial<BlockingSnapshot> = {},
): BlockingSnapshot {
  return {
    enabled: true,
    response: ZERO_IP,
    lists,
    groups: [],
    policies: [],
    ...extra,
  };
}

/** A request for `question` answered from `blocking`, with `policy` set as identify would. */
export function blockingRequest(
  question: string,
  blocking: BlockingSnapshot | undefined,
  policy: PolicyDecision | undefined,
  opts: RequestOptions = {},
): Request {
  const snapshot = { ...snapshotOf([]), ...(blocking && { blocking }) };
  const req = requestFor(question, { ...opts, snapshot });
  if (policy !== undefined) req.policy = policy;
  return req;
}

/** RRsets from lines `owner ttl class type rdata`, in the order written. */
export function records(lines: readonly string[]): RRSet[] {
  const out: RRSet[] = [];
  for (const line of lines) {
    const [owner, ttl, , type, ...rest] = line.trim().split(/\s+/) as string[];
    const rdata = parseRdata(type!, rest.join(" "));
    const last = out.at(-1);
    const code = typeFromName(type!)!;
    if (last !== undefined && last.name === owner && last.type === code) {
      last.rdata.push(rdata);
    } else {
      out.push({ name: owner!, type: code, ttl: Number(ttl), rdata: [rdata] });
    }
  }
  return out;
}

/** The upstream's answer to `req` as a spec (client's ID and question). */
export function answerSpec(
  req: Request,
  answer: readonly string[],
): ResponseSpec {
  const q = req.query;
  return {
    id: q.id,
    opcode: q.opcode,
    rcode: RCODE.NOERROR,
    rd: q.rd,
    ra: true,
    question: q.question!,
    answer: records(answer),
  };
}

/** An upstream or cache answer carried as `wire`. */
export function wireResponse(
  req: Request,
  answer: readonly string[],
  status: Status = "forwarded",
): Response {
  const wire = encodeResponse(answerSpec(req, answer), 65535);
  return { wire, status, stage: status === "forwarded" ? "upstream" : "cache" };
}

/** The same answer carried as `message`. */
export function messageResponse(
  req: Request,
  answer: readonly string[],
  status: Status = "forwarded",
): Response {
  return { message: answerSpec(req, answer), status, stage: "upstream" };
}

/** A `next` that answers `res` and counts its calls. */
export function answering(res: Response | ((req: Request) => Response)) {
  const next = (req: Request): Promise<Response> => {
    next.calls++;
    return Promise.resolve(typeof res === "function" ? res(req) : res);
  };
  next.calls = 0;
  return next;
}
