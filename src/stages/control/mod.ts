/** The control stage; see README.md. */
export { createControlStage } from "./control.ts";
