/** The local stage; see README.md. */
export { createLocalStage } from "./local.ts";
export { SPECIAL_ZONES } from "./special_zones.ts";
