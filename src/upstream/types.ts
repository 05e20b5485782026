/**
 * The seam between the upstream stage and the upstream clients: ask a named
 * group one question, get the upstream's wire answer or why there is none.
 */

/** One question to forward. */
export interface UpstreamRequest {
  /** Presentation name with the trailing dot, as the client wrote it. */
  name: string;
  type: number;
  class: number;
  /** The client's DO bit (RFC 3225). */
  dnssecOk: boolean;
  /** The client's CD bit. */
  checkingDisabled: boolean;
  /** An EDNS Client Subnet option to send (upstreams.ecs forward/add), as option data. */
  clientSubnet?: Uint8Array;
  /** Ends the attempt early (the client went away, shutdown). */
  signal?: AbortSignal;
}

export type UpstreamResult =
  | {
    ok: true;
    /** The upstream's whole response, checked against the question; its ID is the upstream query's. */
    message: Uint8Array;
    /** The server as configured ("tls://1.1.1.1"), for the query log; never a raw socket address. */
    server: string;
    rttMs: number;
  }
  | {
    ok: false;
    /**
     * timeout: no server answered in the group's timeout; error: every
     * server failed; unknown_group: no group of that name is configured (a
     * forward zone or Policy names one upstreams.groups lacks); busy: the
     * group (or every group together) already had as many queries waiting
     * as it may (`maxInFlight`), so none was asked.
     */
    reason: "timeout" | "error" | "unknown_group" | "busy";
    /** What went wrong, for one log line and the query log. */
    detail: string;
    /**
     * The server the failure is put down to, as configured, for the query
     * log and its per-upstream counts: the first still silent at a timeout,
     * the last to fail otherwise. Absent when no server was asked.
     */
    server?: string;
    /**
     * The Extended DNS Error options (RFC 8914, option data) of the last
     * server that answered with a failure RCODE and sent some: why it
     * failed (DNSSEC Bogus, …), for the client.
     */
    extendedErrors?: Uint8Array[];
  };

/** Every upstream group of the configuration, ready to forward. */
export interface Resolver {
  /** Throws nothing; an unknown group is a failure with reason "unknown_group". */
  resolve(group: string, request: UpstreamRequest): Promise<UpstreamResult>;
  /** Waits for attempts still ending, then closes pooled connections. */
  close(): Promise<void>;
}

/**
 * One way of talking to one server (UDP, TCP, DoT, DoH). A transport sends a
 * query message and returns the raw answer; it does not check the answer
 * against the question (the group does that for every transport).
 */
export interface Transport {
  exchange(query: Uint8Array, signal: AbortSignal): Promise<Uint8Array>;
  close(): void;
}
