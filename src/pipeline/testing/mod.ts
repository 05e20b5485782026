/** Test tools for stages and the handler; never imported by production code. */
export {
  decodeAnswer,
  type DecodedAnswer,
  encodeQuery,
  type QueryOptions,
} from "./query_bytes.ts";
export {
  requestFor,
  type RequestOptions,
  snapshotOf,
  zoneFromText,
} from "./fixtures.ts";
export { decodeResponse } from "./decode_response.ts";
