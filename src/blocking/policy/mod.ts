/**
 * Client identification and policy selection as pure logic (no I/O): the
 * ClientGroup index, Policy schedules and the PolicyDecision. The identify
 * stage (src/stages/identify) runs them per query and memoises the result.
 */
export { buildGroupIndex, type GroupIndex } from "./group_index.ts";
export { nextMinuteBoundary, scheduleActive } from "./schedule.ts";
export { decidePolicy } from "./decision.ts";
export { ptrName } from "./ptr_name.ts";
export { compileHostnameGlob } from "./hostname_glob.ts";
