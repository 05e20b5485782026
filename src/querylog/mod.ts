/** The query log: writer, retention and queries over querylog.db; see README.md. */
export {
  isDamagedDatabaseError,
  moveAsideDamaged,
  openQueryLogDb,
  type OpenQueryLogOptions,
  QUERYLOG_DB_FILE,
  QueryLogSchemaTooNewError,
} from "./db.ts";
export { QUERYLOG_SCHEMA_VERSION } from "./schema.ts";
export {
  createQueryLogWriter,
  type QueryLogWriter,
  type QueryLogWriterOptions,
  type QueryLogWriterStats,
} from "./writer.ts";
export {
  type RetentionOptions,
  type RetentionReport,
  runRetention,
} from "./retention.ts";
export {
  DOMAIN_MINUTES_RETENTION_MS,
  type QueryLogSettings,
  ROLLUP_RETENTION_MS,
} from "./settings.ts";
export { QueryLogNotOpenError } from "./writer_connection.ts";
export { SPECIAL_USE_SUFFIXES } from "./special_use_names.ts";
export * from "./queries.ts";
