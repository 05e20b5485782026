/** The identify stage; see README.md. */
export {
  createIdentifyStage,
  DEFAULT_GROUP,
  type IdentifyOptions,
} from "./identify.ts";
export { ptrName } from "../../blocking/policy/mod.ts";
