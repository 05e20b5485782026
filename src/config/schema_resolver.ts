/**
 * Cluster-scope sections of the resolver: `upstreams`, `cache`, `blocking`,
 * `ratelimit` and `querylog`: the same on every node, meant to be changed
 * through the API and replicated in multi-node shapes, both planned
 * (docs/design.md#settings).
 */
import { z } from "zod";
import { durationMsSchema } from "./duration.ts";
import {
  parseBootstrapServer,
  parseUpstreamServer,
} from "./upstream_server.ts";
import { checkDomainName } from "../dns/name.ts";
import {
  addressList,
  duration,
  flag,
  integer,
  oneOf,
  prefixList,
  size,
  stringList,
  text,
} from "./schema_fields.ts";

/** A string `parse` accepts, with its reason when it throws. */
function parsedBy(parse: (text: string) => unknown) {
  return z.string().min(1).superRefine((text, ctx) => {
    try {
      parse(text);
    } catch (error) {
      ctx.addIssue({
        code: "custom",
        message: error instanceof Error ? error.message : String(error),
      });
    }
  });
}

/**
 * A refinement's `when`: run it only when the object and its `keys` parsed.
 * A key that did not is still the text written ("soon"), not a number to
 * compare, and already has its own issue.
 */
function parsed(...keys: string[]) {
  return (payload: z.core.ParsePayload) =>
    !payload.issues.some((issue) => {
      const key = issue.path?.[0];
      return key === undefined || keys.includes(String(key));
    });
}

/** `upstreams.groups.<name>.maxInFlight` by default. */
export const GROUP_MAX_IN_FLIGHT = 200;

/** An upstream server as `parseUpstreamServer` reads it. */
const upstreamServerSchema = parsedBy(parseUpstreamServer);

const upstreamGroupSchema = z.strictObject({
  servers: z.array(upstreamServerSchema).min(1).meta({
    help:
      'Upstream servers: "1.1.1.1:53", "tcp://…", "tls://…" or "https://…/dns-query"',
  }),
  strategy: z.enum(["parallel_best", "strict", "random", "rtt_weighted"])
    .default("parallel_best")
    .meta({ help: "How a query picks servers" }),
  /** Milliseconds (written "2s"). */
  timeout: durationMsSchema({ min: 50, max: 60_000 }).prefault("2s").meta({
    kind: "duration",
    help:
      "Longest a client waits for its answer from the group's servers, then SERVFAIL (or a stale answer); the servers get all but 1/20 of it (at most 100ms), kept for sending the answer",
  }),
  maxInFlight: integer(GROUP_MAX_IN_FLIGHT, 1, 100_000, {
    help:
      "Most queries one listener worker keeps waiting on this group; past it, SERVFAIL (or a stale answer) with an Extended DNS Error at once, so a flood of names through one group cannot hold sockets and timers for every name, nor take the room the other groups need",
  }),
});

/**
 * Why `group` cannot route queries, or undefined when `groups` (the names in
 * `upstreams.groups`) has it. Conditional entries, forward DNSZones and
 * Policies all name groups; each says the same thing when one is missing.
 */
export function unknownUpstreamGroup(
  group: string,
  groups: readonly string[],
): string | undefined {
  if (groups.includes(group)) return undefined;
  return `names no upstream group "${group}" (groups: ${groups.join(", ")})`;
}

/**
 * Why a key of `upstreams.conditional` would never match, or undefined. A
 * key that is not a domain name is a suffix of no query name: accepted, it
 * would send the names it was meant for to the default group unnoticed.
 * One leading dot is dnsmasq's historical spelling of the same suffix
 * (normalizeDomain in src/pipeline/settings.ts drops it), so it is allowed.
 */
function conditionalDomainProblem(key: string): string | undefined {
  const name = /^\.[^.]/.test(key) ? key.slice(1) : key;
  if (name.startsWith("*.")) {
    return "is a wildcard, which no name matches; an entry covers its " +
      `domain and every name below it, so write "${name.slice(2)}"`;
  }
  const problem = checkDomainName(name);
  return problem === null ? undefined : `is not a domain name: ${problem}`;
}

export const upstreamsSchema = z.strictObject({
  groups: z.record(
    z.string().regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/),
    upstreamGroupSchema,
  )
    // prefault: the default is input (timeout "2s") and is parsed as such.
    .prefault({
      default: {
        servers: ["tls://1.1.1.1", "tls://9.9.9.9"],
        strategy: "parallel_best",
        timeout: "2s",
        maxInFlight: GROUP_MAX_IN_FLIGHT,
      },
    }).meta({
      kind: "map of upstream groups",
      help:
        'Named upstream groups; "default" answers everything not routed elsewhere. ' +
        "Strategies: parallel_best, strict, random, rtt_weighted",
    }),
  maxInFlight: integer(500, 1, 100_000, {
    help:
      "Most queries one listener worker keeps waiting on all upstream groups together; past it, SERVFAIL (or a stale answer) with an Extended DNS Error at once",
  }),
  // Checked here: accepted, a bad entry failed every forwarded query.
  bootstrap: z.array(parsedBy(parseBootstrapServer)).default(["1.1.1.1:53"])
    .meta({
      help: "Plain DNS servers that resolve the names of upstream servers",
    }),
  conditional: z.record(z.string().min(1), z.string().min(1)).default({}).meta({
    kind: "map of domain to group",
    help:
      'Conditional forwarding: domain suffix → upstream group, e.g. "corp.example.": internal-ad. ' +
      "An entry covers the domain and every name below it, so it takes no wildcard",
  }),
  ecs: z.strictObject({
    mode: oneOf(["strip", "forward", "add"], "strip", {
      help:
        "EDNS Client Subnet: strip (privacy), forward the client's, or add one",
    }),
    ipv4Prefix: integer(24, 0, 32, {
      help:
        "Longest IPv4 prefix sent upstream (add: of the client's address; forward and add: a client's own option is cut to it)",
    }),
    ipv6Prefix: integer(56, 0, 128, {
      help:
        "Longest IPv6 prefix sent upstream (add: of the client's address; forward and add: a client's own option is cut to it)",
    }),
  }).prefault({}),
}).superRefine((u, ctx) => {
  if (!("default" in u.groups)) {
    ctx.addIssue({
      code: "custom",
      path: ["groups"],
      message: 'needs a "default" group for queries no other rule routes',
    });
  }
  const groups = Object.keys(u.groups);
  for (const [domain, group] of Object.entries(u.conditional)) {
    const problems = [
      conditionalDomainProblem(domain),
      unknownUpstreamGroup(group, groups),
    ];
    for (const message of problems) {
      if (message === undefined) continue;
      ctx.addIssue({ code: "custom", path: ["conditional", domain], message });
    }
  }
}).prefault({}).meta({ help: "Where forwarded queries go" });

export const cacheSchema = z.strictObject({
  maxEntries: integer(200_000, 0, 100_000_000, {
    help: "Most answers kept; 0 disables the cache",
  }),
  /** Bytes (written "64MiB"). */
  maxBytes: size("64MiB", {
    help:
      "Most memory the cached answers of one listener worker take (wire size plus ~1.2 KiB " +
      "of bookkeeping each; at least 1MiB): each UDP and TCP listener socket has its own cache, " +
      "so 64MiB (~50,000 typical answers, or 1,000 of 64 KiB) keeps even 4 workers under " +
      "256 MiB on a small home-lab box; whichever of maxEntries and maxBytes is reached first applies",
  }),
  /** Milliseconds (written "5s"). */
  minTTL: duration("5s", { help: "Shortest TTL an answer is cached for" }),
  /** Milliseconds (written "24h"). */
  maxTTL: duration("24h", { help: "Longest TTL an answer is cached for" }),
  /** Milliseconds (written "5m"). */
  negativeTTL: duration("5m", {
    help: "Longest TTL for NXDOMAIN and NODATA answers",
  }),
  prefetch: z.strictObject({
    threshold: integer(5, 0, 1_000_000, {
      help:
        "Hits within the window that make an entry refresh before it expires; 0 disables",
    }),
    /** Milliseconds (written "2h"). */
    window: duration("2h", { help: "Window in which hits are counted" }),
  }).prefault({}),
  serveStale: z.strictObject({
    enabled: flag(true, {
      help: "Answer from expired entries when upstreams fail (RFC 8767)",
    }),
    /** Milliseconds (written "72h"). */
    ttl: duration("72h", {
      help: "How long past expiry an entry may still be served",
    }),
    /** Milliseconds (written "30s"). */
    answerTTL: duration("30s", { help: "TTL put on stale answers" }),
    /** Milliseconds (written "1800ms"). */
    maxWait: duration("1800ms", {
      help: "Time to wait for upstreams before answering stale",
    }),
  }).prefault({}),
}).refine(
  (c) => c.minTTL <= c.maxTTL,
  {
    message: "must not be longer than maxTTL",
    path: ["minTTL"],
    when: parsed("minTTL", "maxTTL"),
  },
).refine(
  (c) => c.maxBytes >= 2 ** 20,
  {
    message: "must be at least 1MiB",
    path: ["maxBytes"],
    when: parsed("maxBytes"),
  },
).prefault({}).meta({ help: "The answer cache" });

export const blockingSchema = z.strictObject({
  enabled: flag(true, { help: "Apply block lists and policies" }),
  defaultResponse: oneOf(
    ["zeroIP", "nxdomain", "customIP", "refused"],
    "zeroIP",
    {
      help:
        "Answer for blocked names (refused is discouraged: clients retry elsewhere)",
    },
  ),
  customIPs: addressList([], {
    help: "Addresses answered when defaultResponse is customIP",
  }),
  /** Milliseconds (written "10m"). */
  blockTTL: duration("10m", { help: "TTL of blocked answers" }),
  initStrategy: oneOf(["fast", "blocking", "failOnError"], "fast", {
    help:
      "At start: fast compiles lists up to 256 KiB (such as the starter list) and every allow list, answers, " +
      "and compiles larger block lists in the background, each blocking from when it is ready; " +
      "blocking waits for every list's first download (at most 2 min) and compile; " +
      "failOnError also refuses to start when a download fails or takes over 2 min",
  }),
  /** Milliseconds (written "24h"). */
  refreshInterval: duration("24h", {
    help: "How often block lists are downloaded again",
  }, { min: 60_000 }),
  allowDegraded: flag(true, {
    help:
      "Stay ready when some lists fail to load (false: /healthz/ready fails until they load)",
  }),
  listsDir: text("", {
    help: "Cache of downloaded list bodies; <dataDir>/lists when empty",
    hostOnly: true,
    restartRequired: true,
  }),
}).superRefine((b, ctx) => {
  if (b.defaultResponse === "customIP" && b.customIPs.length === 0) {
    ctx.addIssue({
      code: "custom",
      path: ["customIPs"],
      message: "must not be empty when defaultResponse is customIP",
    });
  }
}).prefault({}).meta({
  // Read once at start; upstreams, cache and ratelimit are applied live.
  restartRequired: true,
  help: "Blocking of ads, trackers and malware",
});

/**
 * Prefix lengths as keys, each spelled one way only, from 0 to the address
 * width: "33" for IPv4 would be ignored, and "032" next to "32" would be a
 * second level on the same bucket, taking two tokens per query.
 */
const PREFIX_LENGTH = {
  32: /^(?:[12]?\d|3[0-2])$/, // 0-29, 30-32
  128: /^(?:[1-9]?\d|1[01]\d|12[0-8])$/, // 0-99, 100-119, 120-128
};

const prefixLimits = (
  bits: keyof typeof PREFIX_LENGTH,
  def: Record<string, number>,
  help: string,
) =>
  z.record(
    z.string().regex(PREFIX_LENGTH[bits], {
      message:
        `must be a prefix length from 0 to ${bits}, without sign or leading zeros`,
    }),
    z.number().int().min(0),
  ).default(def).meta({
    kind: "map of prefix length to queries per minute",
    help,
  });

/** Prefix lengths that get buckets: a limit of 0 turns a length off. */
function limitedLengths(limits: Record<string, number>): number {
  return Object.values(limits).filter((qpm) => qpm > 0).length;
}

export const ratelimitSchema = z.strictObject({
  enabled: flag(true, {
    help:
      "Limit UDP queries per client prefix; TCP, encrypted transports and loopback are never limited",
  }),
  ipv4: prefixLimits(
    32,
    { "32": 600, "24": 6000 },
    "Queries per minute per IPv4 prefix length (0 to 32)",
  ),
  ipv6: prefixLimits(
    128,
    { "128": 600, "64": 6000, "56": 12000 },
    "Queries per minute per IPv6 prefix length (0 to 128)",
  ),
  slip: integer(50, 0, 100, {
    help:
      "Percent of over-limit queries answered with TC=1; the rest are dropped",
  }),
  maxBuckets: integer(65_536, 1, 100_000_000, {
    help: "Most prefixes tracked at once; at least the number of limited " +
      "prefix lengths of ipv4 or ipv6, whichever has more, since a query " +
      "needs one bucket for each",
  }),
  exempt: prefixList([], { help: "Clients never limited" }),
}).superRefine((r, ctx) => {
  // The floor is the one below which limiting cannot work at all: a query
  // evicts the buckets it just made, so every query finds full buckets.
  // Above it, how many clients to track is a sizing choice, and a table too
  // small for the traffic shows as kudurru_ratelimit_buckets_evicted_total.
  // A fixed floor (say 1024) would be arbitrary and refuse small tables that
  // do limit, such as a handful of clients behind a home router.
  const v4 = limitedLengths(r.ipv4);
  const v6 = limitedLengths(r.ipv6);
  const [needed, family] = v6 > v4 ? [v6, "ipv6"] : [v4, "ipv4"];
  // Below 1 the range check has already said what is allowed.
  if (r.maxBuckets >= 1 && r.maxBuckets < needed) {
    ctx.addIssue({
      code: "custom",
      path: ["maxBuckets"],
      message: `must be at least ${needed}, not ${r.maxBuckets}: a query ` +
        `needs one bucket per limited prefix length (${needed} in ${family}), ` +
        "and with fewer it evicts the buckets it just made, so no client " +
        "is ever limited",
    });
  }
}).prefault({}).meta({ help: "Per-prefix rate limit on UDP at ingress" });

export const querylogSchema = z.strictObject({
  enabled: flag(true, { help: "Record every query in querylog.db" }),
  privacy: oneOf(
    ["full", "hideClient", "hideDomain", "anonymous", "anonymized", "none"],
    "full",
    {
      help: "full keeps clients and names; hideClient and hideDomain store " +
        '"hidden" instead of the client or the name (hideDomain also leaves ' +
        "out the answer and the block rule; hideClient also leaves out the " +
        "client's groups); anonymous hides both; anonymized truncates client addresses to /24 or /48; " +
        "none keeps only counters",
    },
  ),
  retention: z.strictObject({
    /** Milliseconds (written "720h"). */
    raw: duration("720h", { help: "How long individual queries are kept" }),
    /** Bytes (written "10GiB"). */
    maxDBBytes: size("10GiB", {
      help: "Largest querylog.db before the oldest rows are deleted",
    }),
  }).prefault({}),
  exclude: z.strictObject({
    domains: stringList([], { help: "Domains never logged (suffix match)" }),
    clients: stringList([], {
      help: "Clients never logged: addresses, prefixes or names",
    }),
    sudn: flag(true, {
      help: "Skip special-use names such as localhost and *.arpa probes",
    }),
  }).prefault({}),
}).prefault({}).meta({
  // Read once at start; upstreams, cache and ratelimit are applied live.
  restartRequired: true,
  help: "The query log",
});
