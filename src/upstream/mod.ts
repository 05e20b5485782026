/**
 * Upstream clients and groups: what the upstream stage and the wiring in
 * `src/cli/serve.ts` use. See README.md.
 */
export { createResolver, type ResolverOptions } from "./resolver.ts";
export {
  parseUpstreamServer,
  type UpstreamScheme,
  type UpstreamServer,
} from "./server_address.ts";
export type { StrategyName } from "./strategies.ts";
export type {
  Resolver,
  Transport,
  UpstreamRequest,
  UpstreamResult,
} from "./types.ts";
export {
  MAX_UPSTREAMS_PER_BATCH,
  OTHER_UPSTREAM,
  UpstreamCounters,
  type UpstreamCounts,
  type UpstreamServerCounts,
  workerUpstreamCounters,
} from "./upstream_counters.ts";
