/**
 * Why an answer is what it is: every Response carries one Status so the
 * query log and the dashboard can explain it (blocky's RESOLVED/CACHED/
 * BLOCKED, extended). The list is closed so metric labels stay bounded.
 */
export const STATUSES = [
  /** Answered by an upstream group (upstream stage). */
  "forwarded",
  /** Answered from the cache. */
  "cached",
  /** Served stale from the cache because every upstream failed (RFC 8767). */
  "cached_stale",
  /** Answered from a primary zone (authoritative stage). */
  "authoritative",
  /** Answered by the local stage: special-use names, RFC 6303 zones, host records. */
  "local_record",
  /** Blocked by a BlockList rule. */
  "blocked_list",
  /** Blocked by a blocked service of a Policy (planned). */
  "blocked_service",
  /** Rewritten by a rewrite rule or a view (planned). */
  "rewritten",
  /** REFUSED: by policy, an unsupported opcode/class, or no one to ask. */
  "refused",
  /** Nothing sent (a response, garbage without a header, a policy drop). */
  "dropped",
  /** Over the per-prefix UDP rate limit: dropped, or TC=1 so the client retries over TCP. */
  "rate_limited",
  /** Nothing sent: the listener (UDP, or TCP over its per-worker budget) had too many queries waiting on upstreams (ClientInfo.overloaded). */
  "overloaded",
  /** SERVFAIL of our own: a stage failed, or no snapshot yet. */
  "servfail",
  /** SERVFAIL because the upstreams failed. */
  "servfail_upstream",
  /** SERVFAIL because the upstreams timed out. */
  "timeout_upstream",
  /**
   * SERVFAIL at once: the upstream group (or all of them together) had as
   * many queries waiting as `maxInFlight` allows.
   */
  "overloaded_upstream",
  /** FORMERR: the query was malformed. */
  "formerr",
  /** NOTIMP: an opcode or query type we do not implement. */
  "notimp",
  /** BADVERS: an EDNS version we do not speak. */
  "badvers",
  /** NOTAUTH: a TSIG-signed query, with a key we do not know (RFC 8945 BADKEY). */
  "notauth",
  /** A CHAOS-class identity answer (id.server, version.bind, …). */
  "chaos",
  /** The health.kudurru.internal. check. */
  "health",
] as const;

/** One of {@linkcode STATUSES}. */
export type Status = (typeof STATUSES)[number];
