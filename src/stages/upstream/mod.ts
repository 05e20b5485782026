/** The upstream stage; see README.md. */
export {
  createUpstreamStage,
  EDE_NETWORK_ERROR,
  EDE_NO_REACHABLE_AUTHORITY,
  extendedError,
  type UpstreamStage,
  type UpstreamStageOptions,
} from "./upstream.ts";
export type { ResolverSource } from "./resolver_holder.ts";
export {
  compileConditional,
  type ConditionalTable,
  DEFAULT_GROUP,
  longestConditional,
  normalizeDomain,
  type Route,
  routeQuery,
  type RouteRule,
} from "./routing.ts";
export { isCacheableRoute, upstreamCacheScope } from "./cache_scope.ts";
export {
  clientSubnetCacheScope,
  clientSubnetFor,
  EDNS_CLIENT_SUBNET,
  encodeClientSubnet,
  subnetOfAddress,
} from "./client_subnet.ts";
export {
  type ForwardedAnswer,
  forwardedAnswer,
  type ForwardedAnswerOptions,
} from "./forwarded_answer.ts";
