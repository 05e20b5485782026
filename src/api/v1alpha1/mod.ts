/**
 * kudurru.io/v1alpha1: the kinds, their registry and their validation.
 *
 * @module
 */
export * from "./meta.ts";
export * from "./dnszone.ts";
export * from "./dnsrecordset.ts";
export * from "./blocklist.ts";
export * from "./clientgroup.ts";
export * from "./policy.ts";
export {
  findKind,
  type ImmutableField,
  type KindInfo,
  KINDS,
} from "./kinds.ts";
export {
  type FieldIssue,
  formatPath,
  sameContent,
  toFieldIssues,
  validateObject,
  validateStatus,
  type Validation,
} from "./validate.ts";
export { CRD_TEMPLATES_DIR, renderCrds } from "./crds.ts";
export type { BasicStatus } from "./field_schemas.ts";
