/**
 * The stage contract (CoreDNS's ServeDNS, made TypeScript): a stage answers
 * a request itself or passes it on with `next`, and may look at what `next`
 * returned before returning it.
 */
import type { Request } from "./request.ts";
import type { Response } from "./response.ts";

/**
 * The fixed stage order (code, not config; docs/design.md#stage-order).
 * `chain.ts` runs the
 * stages that exist in this order, except `log`, which wraps all others.
 */
export const STAGE_ORDER = [
  "ingress",
  "identify",
  "control",
  "local",
  "authoritative",
  "blocking",
  "rewrite",
  "cache",
  "dnssec",
  "upstream",
  "postprocess",
  "log",
] as const;

/** A documented, fixed stage id. */
export type StageName = (typeof STAGE_ORDER)[number];

/** Runs the rest of the chain. */
export type Next = (req: Request) => Promise<Response> | Response;

/** One step of the query path. */
export interface Stage {
  readonly name: StageName;
  /**
   * Answers `req` or calls `next(req)`. May throw: the chain catches it once,
   * logs it and answers SERVFAIL. Never mutate a Response another stage
   * returned; copy it first.
   */
  serve(req: Request, next: Next): Promise<Response> | Response;
}
