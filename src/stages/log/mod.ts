/** The log stage; see README.md. */
export { createLogStage } from "./log.ts";
