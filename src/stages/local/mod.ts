/** The local stage; see README.md. */
export { createLocalStage } from "./local.ts";
