/** The ingress stage; see README.md. */
export { createIngressStage, type IngressStage } from "./ingress.ts";
export { HEALTH_NAME } from "./identity_answers.ts";
export {
  createRateLimiter,
  type RateLimitCounters,
  type RateLimiter,
  type RateLimiterOptions,
  type RateLimitVerdict,
} from "./rate_limit.ts";
export { createRateLimitGate, type RateLimitGate } from "./rate_limit_gate.ts";
