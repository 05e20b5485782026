/**
 * The QueryHandler of handler.ts: bytes in, bytes out. Parse, run the chain,
 * encode within the transport's size limit. Never throws: anything that
 * escapes is logged once and the query is answered SERVFAIL or dropped.
 */
import { signMessage } from "../dns/tsig/tsig.ts";
import { RCODE } from "../dns/wire/constants.ts";
import type { Logger } from "../log/logger.ts";
import { VERSION } from "../version.ts";
import { encodeAnswer } from "./answer_encoding.ts";
import { buildChain } from "./chain.ts";
import type { ClientInfo, QueryHandler } from "./handler.ts";
import type { NodeIdentity, Request } from "./request.ts";
import { buildRequest } from "./request_builder.ts";
import { replyTo, type Response } from "./response.ts";
import type { Snapshot } from "./snapshot.ts";
import type { Stage } from "./stage.ts";
import { createStageCounters, type StageCounters } from "./stage_counters.ts";

export interface QueryHandlerOptions {
  logger: Logger;
  /** The stages to run, in any order (the chain sorts them); see `src/stages/data_plane.ts`. */
  stages: readonly Stage[];
  /**
   * Node name for CHAOS, NSID and health answers until a snapshot names it.
   * @default "kudurru"
   */
  nodeName?: string;
  /** @default the version in deno.json */
  version?: string;
  /** Shared with the log stage; @default fresh counters */
  counters?: StageCounters;
  /** @default Date.now */
  now?: () => number;
  /**
   * Told about every answer once it is encoded (null: nothing sent), with
   * the time the query took (the chain's, as the log stage timed it, when
   * there is one); the query log's event source. Must not throw (a throw
   * is logged and ignored).
   */
  onAnswered?: (
    req: Request,
    res: Response,
    bytes: Uint8Array | null,
    durationMs: number,
  ) => void;
}

/** A QueryHandler that also exposes its counters for draining. */
export interface PipelineQueryHandler extends QueryHandler {
  readonly counters: StageCounters;
  /** From now on requests carry `lameduck` (the server is stopping). */
  enterLameduck(): void;
  /**
   * Runs `query` as if `client` had sent it, to explain the answer (the
   * API's "why"): the chain without `log`, the Request marked `explain`, so
   * nothing is forwarded, counted or logged. Never rejects.
   */
  explain(query: Uint8Array, client: ClientInfo): Promise<Explained>;
}

/** What explain() found: the request as the stages left it, and the answer. */
export interface Explained {
  request: Request | undefined;
  response: Response;
  /** The answer's bytes, null when nothing would be sent. */
  bytes: Uint8Array | null;
}

/** Builds the chain from `opts.stages` and returns the handler listeners call. */
export function createQueryHandler(
  opts: QueryHandlerOptions,
): PipelineQueryHandler {
  const counters = opts.counters ?? createStageCounters();
  const chain = buildChain(opts.stages, { logger: opts.logger, counters });
  const explainChain = buildChain(opts.stages, {
    logger: opts.logger,
    from: "ingress",
  });
  const fallbackNode: NodeIdentity = {
    name: opts.nodeName ?? "kudurru",
    version: opts.version ?? VERSION,
  };
  const now = opts.now ?? Date.now;
  const { onAnswered } = opts;
  // The log stage times the chain (req.elapsedMs); time it here only
  // without one.
  const timed = onAnswered !== undefined &&
    !opts.stages.some((stage) => stage.name === "log");
  let snapshot: Snapshot | undefined;
  let lameduck = false;

  function handle(
    bytes: Uint8Array,
    client: ClientInfo,
  ): Promise<Uint8Array | null> | Uint8Array | null {
    let req: Request | undefined;
    const started = timed ? performance.now() : 0;
    try {
      const current = snapshot; // read once: the query keeps this snapshot
      req = buildRequest(bytes, {
        client,
        snapshot: current,
        node: current?.node ?? fallbackNode,
        received: now(),
        lameduck,
      });
      const res = chain(req);
      if (!(res instanceof Promise)) return answered(req, res, started);
      const pending = req;
      return res
        .then((settled) => answered(pending, settled, started))
        .catch((error: unknown) => failed(pending, error));
    } catch (error) {
      return failed(req, error);
    }
  }

  function failed(req: Request | undefined, error: unknown): null {
    opts.logger.error("Query handling failed; dropping the query", {
      qname: req?.query.question?.name,
      qtype: req?.query.question?.type,
      error,
    });
    return null;
  }

  /** The answer's bytes, after telling `onAnswered` about them. */
  function answered(
    req: Request,
    res: Response,
    started: number,
  ): Promise<Uint8Array | null> | Uint8Array | null {
    const bytes = toBytes(req, res);
    if (onAnswered !== undefined) {
      try {
        const ms = timed
          ? performance.now() - started
          : Math.max(0, req.elapsedMs);
        onAnswered(req, res, bytes, ms);
      } catch (error) {
        opts.logger.error("Recording an answer failed", { error });
      }
    }
    if (res.stream !== undefined) {
      // A transfer's messages go to the connection as it can take them.
      req.client.streams?.(res.stream);
      return null;
    }
    return req.tsig === undefined || bytes === null
      ? bytes
      : signed(req.tsig, bytes);
  }

  /**
   * The answer to a signed query, signed with the query's key and covering
   * its MAC (RFC 8945 §5.3); it was sized to leave room for the record
   * (answerSizeLimit).
   */
  async function signed(
    tsig: NonNullable<Request["tsig"]>,
    bytes: Uint8Array,
  ): Promise<Uint8Array> {
    // A copy: answers copied from the memo or the cache live in short-lived
    // buffers that the next query reuses, and signing awaits.
    const { message } = await signMessage(bytes.slice(), tsig.key, {
      now: Math.floor(now() / 1000),
      requestMac: tsig.mac,
    });
    return message;
  }

  function toBytes(req: Request, res: Response): Uint8Array | null {
    if (res.drop === true) return null;
    if (res.wire !== undefined) {
      // Wire answers are copies made for this request; set the ID in place
      // anyway so no stage can leak another query's ID.
      res.wire[0] = req.query.id >>> 8;
      res.wire[1] = req.query.id & 0xff;
      return res.wire;
    }
    if (res.message === undefined) return null;
    try {
      return encodeAnswer(req, res.message);
    } catch (error) {
      opts.logger.error("Cannot encode answer; answering SERVFAIL", {
        stage: res.stage,
        qname: req.query.question?.name,
        qtype: req.query.question?.type,
        error,
      });
      counters.countEncodeError();
      return encodeAnswer(req, replyTo(req, RCODE.SERVFAIL));
    }
  }

  return {
    counters,
    handle,
    setSnapshot(next) {
      snapshot = next;
    },
    enterLameduck() {
      lameduck = true;
    },
    async explain(query, client) {
      const current = snapshot;
      let req: Request | undefined;
      try {
        req = buildRequest(query, {
          client,
          snapshot: current,
          node: current?.node ?? fallbackNode,
          received: now(),
          explain: true,
        });
        const response = await explainChain(req);
        return { request: req, response, bytes: toBytes(req, response) };
      } catch (error) {
        opts.logger.error("Explaining a query failed", { error });
        return {
          request: req,
          response: { drop: true, status: "servfail", stage: "chain" },
          bytes: null,
        };
      }
    },
  };
}
