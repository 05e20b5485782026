/**
 * The Store: its interface and errors, the drivers, and the driver-independent
 * pieces callers use directly (label selectors, snapshots, the Apply rules).
 * The conformance suite is imported from ./conformance.ts by driver tests.
 */
export * from "./store.ts";
export {
  type ApplyPlan,
  defaultValidator,
  type DeletePlan,
  type ObjectValidator,
  permissiveValidator,
  planApply,
  planDelete,
  planStatus,
  sameContent,
  type ValidationResult,
} from "./apply_rules.ts";
export {
  type LabelRequirement,
  LabelSelectorError,
  matchesLabels,
  parseLabelSelector,
} from "./label_selector.ts";
export { InvalidContinueError } from "./pagination.ts";
export {
  checkRuntimeValue,
  InvalidRuntimeValueError,
  RUNTIME_KEY_PATTERN,
  RUNTIME_VALUE_MAX_LENGTH,
} from "./runtime_values.ts";
export { parseObjectList, restoreYaml, snapshotYaml } from "./snapshot.ts";
export {
  createMemoryStore,
  type MemoryAuditRow,
  type MemoryStore,
  type MemoryStoreOptions,
} from "./memory/memory_store.ts";
export {
  openSqliteStore,
  type SqliteStoreOptions,
} from "./sqlite/sqlite_store.ts";
