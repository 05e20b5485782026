/**
 * Everything that reads querylog.db: raw-event search and tail (search.ts),
 * dashboard statistics from the rollups (stats.ts, summaries.ts).
 */
export {
  DEFAULT_SEARCH_LIMIT,
  latestEventId,
  MAX_SEARCH_LIMIT,
  parseCursor,
  searchEvents,
  type SearchOptions,
  type SearchPage,
  tail,
  type TailOptions,
  type TailPage,
} from "./search.ts";
export { type EventFilters, FilterError } from "./search_filters.ts";
export { type LoggedEvent } from "./event_rows.ts";
export {
  type ClientCount,
  type DomainCount,
  MAX_BUCKETS,
  queriesOverTime,
  type StatsWindow,
  type TimeBucket,
  topClients,
  topDomains,
  type TopOptions,
  windowMinutes,
} from "./stats.ts";
export {
  type ClientSummary,
  clientSummary,
  type Totals,
  totals,
  type UpstreamStats,
  upstreamStats,
} from "./summaries.ts";
