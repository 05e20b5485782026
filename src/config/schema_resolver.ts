/**
 * Cluster-scope sections of the resolver: `upstreams`, `cache`, `blocking`,
 * `ratelimit` and `querylog`. These may be changed through the API and are
 * replicated in multi-node shapes (seed §6.2).
 */
import { z } from "zod";
import { durationSchema, parseDuration } from "./duration.ts";
import { parseUpstreamServer } from "../upstream/server_address.ts";
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

/** An upstream server as `parseUpstreamServer` reads it, with its reason when not. */
const upstreamServerSchema = z.string().min(1).superRefine((text, ctx) => {
  try {
    parseUpstreamServer(text);
  } catch (error) {
    ctx.addIssue({
      code: "custom",
      message: error instanceof Error ? error.message : String(error),
    });
  }
});

const upstreamGroupSchema = z.strictObject({
  servers: z.array(upstreamServerSchema).min(1).meta({
    help:
      'Upstream servers: "1.1.1.1:53", "tcp://…", "tls://…" or "https://…/dns-query"',
  }),
  strategy: z.enum(["parallel_best", "strict", "random", "rtt_weighted"])
    .default("parallel_best")
    .meta({ help: "How a query picks servers" }),
  timeout: durationSchema({ min: 50, max: 60_000 }).default("2s").meta({
    kind: "duration",
    help:
      "Time one query may take across the group's servers; then SERVFAIL (or a stale answer)",
  }),
});

export const upstreamsSchema = z.strictObject({
  groups: z.record(
    z.string().regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/),
    upstreamGroupSchema,
  )
    .default({
      default: {
        servers: ["tls://1.1.1.1", "tls://9.9.9.9"],
        strategy: "parallel_best",
        timeout: "2s",
      },
    }).meta({
      kind: "map of upstream groups",
      help:
        'Named upstream groups; "default" answers everything not routed elsewhere. ' +
        "Strategies: parallel_best, strict, random, rtt_weighted",
    }),
  bootstrap: stringList(["1.1.1.1:53"], {
    help: "Plain DNS servers that resolve the names of upstream servers",
  }),
  conditional: z.record(z.string().min(1), z.string().min(1)).default({}).meta({
    kind: "map of domain to group",
    help:
      'Conditional forwarding: domain suffix → upstream group, e.g. "corp.example.": internal-ad',
  }),
  ecs: z.strictObject({
    mode: oneOf(["strip", "forward", "add"], "strip", {
      help:
        "EDNS Client Subnet: strip (privacy), forward the client's, or add one",
    }),
    ipv4Prefix: integer(24, 0, 32, {
      help: "IPv4 prefix length sent when mode is add",
    }),
    ipv6Prefix: integer(56, 0, 128, {
      help: "IPv6 prefix length sent when mode is add",
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
  for (const [domain, group] of Object.entries(u.conditional)) {
    if (!(group in u.groups)) {
      ctx.addIssue({
        code: "custom",
        path: ["conditional", domain],
        message: `names no upstream group "${group}" (groups: ${
          Object.keys(u.groups).join(", ")
        })`,
      });
    }
  }
}).prefault({}).meta({ help: "Where forwarded queries go" });

export const cacheSchema = z.strictObject({
  maxEntries: integer(200_000, 0, 100_000_000, {
    help: "Most answers kept; 0 disables the cache",
  }),
  minTTL: duration("5s", { help: "Shortest TTL an answer is cached for" }),
  maxTTL: duration("24h", { help: "Longest TTL an answer is cached for" }),
  negativeTTL: duration("5m", {
    help: "Longest TTL for NXDOMAIN and NODATA answers",
  }),
  prefetch: z.strictObject({
    threshold: integer(5, 0, 1_000_000, {
      help:
        "Hits within the window that make an entry refresh before it expires; 0 disables",
    }),
    window: duration("2h", { help: "Window in which hits are counted" }),
  }).prefault({}),
  serveStale: z.strictObject({
    enabled: flag(true, {
      help: "Answer from expired entries when upstreams fail (RFC 8767)",
    }),
    ttl: duration("72h", {
      help: "How long past expiry an entry may still be served",
    }),
    answerTTL: duration("30s", { help: "TTL put on stale answers" }),
    maxWait: duration("1800ms", {
      help: "Time to wait for upstreams before answering stale",
    }),
  }).prefault({}),
}).refine(
  (c) => {
    const min = parseDuration(c.minTTL), max = parseDuration(c.maxTTL);
    return min === undefined || max === undefined || min <= max;
  },
  { message: "must not be longer than maxTTL", path: ["minTTL"] },
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
  blockTTL: duration("10m", { help: "TTL of blocked answers" }),
  initStrategy: oneOf(["fast", "blocking", "failOnError"], "fast", {
    help:
      "At start: fast answers at once from the disk copy, blocking waits for lists, " +
      "failOnError stops when a list cannot load",
  }),
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
}).prefault({}).meta({ help: "Blocking of ads, trackers and malware" });

const prefixLimits = (def: Record<string, number>, help: string) =>
  z.record(z.string().regex(/^\d{1,3}$/), z.number().int().min(0)).default(def)
    .meta({
      kind: "map of prefix length to queries per minute",
      help,
    });

export const ratelimitSchema = z.strictObject({
  enabled: flag(true, {
    help:
      "Limit UDP queries per client prefix; TCP, encrypted transports and loopback are never limited",
  }),
  ipv4: prefixLimits(
    { "32": 600, "24": 6000 },
    "Queries per minute per IPv4 prefix length",
  ),
  ipv6: prefixLimits(
    { "128": 600, "64": 6000, "56": 12000 },
    "Queries per minute per IPv6 prefix length",
  ),
  slip: integer(50, 0, 100, {
    help:
      "Percent of over-limit queries answered with TC=1; the rest are dropped",
  }),
  maxBuckets: integer(65_536, 1, 100_000_000, {
    help: "Most prefixes tracked at once",
  }),
  exempt: prefixList([], { help: "Clients never limited" }),
}).prefault({}).meta({ help: "Per-prefix rate limit on UDP at ingress" });

export const querylogSchema = z.strictObject({
  enabled: flag(true, { help: "Record every query in querylog.db" }),
  privacy: oneOf(
    ["full", "hideClient", "hideDomain", "anonymous", "anonymized", "none"],
    "full",
    {
      help: "full keeps clients and names; hideClient and hideDomain store " +
        '"hidden" instead of the client or the name (hideDomain also leaves ' +
        "out the answer and the block rule); anonymous " +
        "hides both; anonymized truncates client addresses to /24 or /48; " +
        "none keeps only counters",
    },
  ),
  retention: z.strictObject({
    raw: duration("720h", { help: "How long individual queries are kept" }),
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
}).prefault({}).meta({ help: "The query log" });
