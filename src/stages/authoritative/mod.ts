/** The authoritative stage; see README.md. */
export {
  type AuthoritativeOptions,
  type AuthoritativeStage,
  createAuthoritativeStage,
} from "./authoritative.ts";
export { DEFAULT_MEMO_ENTRIES, type MemoStats } from "./name_memo.ts";
