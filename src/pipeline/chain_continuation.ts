/**
 * Continuing a CNAME chain by the target's own route. When an upstream's
 * answer leads to a name that upstream may not speak for (a name in one of
 * our zones, or outside the suffix a conditional group was asked for), the
 * upstream stage asks for that name again through the chain from `local`
 * on, as if the client had asked it: special-use names, our zones,
 * blocking, the cache and the name's own upstream group all apply. The
 * client's groups and policy carry over; nothing is logged or counted as
 * a query of its own (the client's query is).
 */
import { EDNS_OPTION } from "../dns/wire/constants.ts";
import { encodeQueryMessage } from "../dns/wire/query_message.ts";
import { encodeAnswer } from "./answer_encoding.ts";
import type { Request } from "./request.ts";
import { buildRequest } from "./request_builder.ts";
import type { Response } from "./response.ts";
import type { Next } from "./stage.ts";

/**
 * How many times one client query may be continued, chain after chain: an
 * upstream that points each answer at another route cannot keep the
 * listener busy for ever. Past it the chain is answered as it stands.
 */
export const MAX_CONTINUATIONS = 8;

/** The answer for the target: its bytes (null: nothing to send), and why. */
export interface ContinuedAnswer {
  wire: Uint8Array | null;
  response: Response;
}

/**
 * Resolves `name` (with the question's type and class) for `req`'s
 * client; undefined when no continuation may be made (none is wired, or
 * MAX_CONTINUATIONS is reached).
 */
export type ContinueChain = (
  req: Request,
  name: string,
) => Promise<ContinuedAnswer | undefined>;

const depths = new WeakMap<Request, number>();

/**
 * A ContinueChain that runs `rest()` (the chain from `local` on, without
 * `log`; undefined until the chain is built).
 */
export function continuationThrough(
  rest: () => Next | undefined,
): ContinueChain {
  return async (req, name) => {
    const next = rest();
    const depth = (depths.get(req) ?? 0) + 1;
    if (next === undefined || depth > MAX_CONTINUATIONS) return undefined;
    const sub = continuedRequest(req, name);
    depths.set(sub, depth);
    const response = await next(sub);
    return { wire: wireOf(sub, response), response };
  };
}

/**
 * The request for `name` made on behalf of `parent`'s client: same type,
 * class, CD and DO, the client's EDNS Client Subnet option, the client's
 * groups and policy; sized as over TCP, since the answer is cut to the
 * client's size only once joined to the chain.
 */
function continuedRequest(parent: Request, name: string): Request {
  const { query } = parent;
  const question = query.question!;
  const edns = query.edns;
  const bytes = encodeQueryMessage({
    id: query.id,
    question: { name, type: question.type, class: question.class },
    rd: true,
    cd: query.cd,
    ...(edns !== undefined && {
      edns: {
        udpSize: 65535,
        dnssecOk: edns.dnssecOk,
        options: edns.options.filter((o) =>
          o.code === EDNS_OPTION.CLIENT_SUBNET
        ),
      },
    }),
  });
  const sub = buildRequest(bytes, {
    client: { ...parent.client, transport: "tcp" },
    snapshot: parent.snapshot,
    node: parent.node,
    received: parent.received,
    lameduck: parent.lameduck,
  });
  sub.groups = parent.groups;
  if (parent.policy !== undefined) sub.policy = parent.policy;
  return sub;
}

function wireOf(req: Request, res: Response): Uint8Array | null {
  if (res.drop === true) return null;
  if (res.wire !== undefined) return res.wire;
  return res.message === undefined ? null : encodeAnswer(req, res.message);
}
