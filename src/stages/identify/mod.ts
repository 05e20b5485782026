/** The identify stage; see README.md. */
export { createIdentifyStage, DEFAULT_GROUP } from "./identify.ts";
