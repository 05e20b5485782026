/** The ingress stage; see README.md. */
export { createIngressStage } from "./ingress.ts";
export { HEALTH_NAME } from "./identity_answers.ts";
