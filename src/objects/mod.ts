/**
 * File-managed objects (the config file's `objects:` and objectsDir/*.yaml),
 * `kudurru apply -f`, and the first-boot bootstrap.
 */
export {
  createObjectsLoader,
  ObjectsLoader,
  type ObjectsLoaderOptions,
  type ObjectsStatus,
  StaticReadOnlyError,
} from "./loader.ts";
export {
  type ApplyFileOptions,
  applyYamlFile,
  applyYamlText,
} from "./apply_file.ts";
export {
  BOOTSTRAP_MANAGER,
  bootstrapObjects,
  type BootstrapOptions,
  seedFirstBoot,
  type SeedResult,
} from "./bootstrap.ts";
export type {
  Diagnosis,
  DiagnosisReason,
  DiagnosisSeverity,
} from "./diagnosis.ts";
export type {
  ApplyResult,
  LoadReport,
  ObjectOutcome,
  SourceSummary,
} from "./report.ts";
export { DEFAULT_INLINE_SOURCE, managerOf } from "./sources.ts";
export { LOADER_ACTOR } from "./load_pass.ts";
