/**
 * The DNS wire format: fast query parsing and response encoding with name
 * compression and size-limited truncation. See README.md.
 *
 * @example
 * ```ts
 * const query = parseQuery(bytes);
 * const answer = encodeResponse({
 *   id: query.id, opcode: query.opcode, rcode: RCODE.NOERROR, aa: true,
 *   question: query.question,
 *   answer: [{ name: "www.example.org.", type: TYPE.A, ttl: 300,
 *     rdata: [{ type: "A", address: "192.0.2.1" }] }],
 * }, 512);
 * ```
 */
export {
  CLASS,
  EDNS_OPTION,
  OPCODE,
  RCODE,
  TYPE,
  typeFromName,
  type TypeMnemonic,
  typeName,
} from "./constants.ts";
export {
  type EdnsInfo,
  type EdnsOption,
  HEADER_OCTETS,
  headerOnlyQuery,
  parseQuery,
  type QueryInfo,
  type Question,
} from "./query.ts";
export {
  clientSubnetEcho,
  clientSubnetProblem,
  isClientSubnet,
  queryClientSubnet,
  sameClientSubnet,
} from "./client_subnet.ts";
export { patchQuestionCase } from "./question_case.ts";
export { ipv4Text, ipv6Text } from "./address_text.ts";
export { EDE, extendedError } from "./extended_error.ts";
export { ednsOptionsProblem } from "./edns_option_check.ts";
export { type ReadName, readName, skipName } from "./read_name.ts";
export { checkRecordData } from "./rdata_check.ts";
export { encodeResponse, patchId, type ResponseSpec } from "./response.ts";
export { encodeQueryMessage, type QuerySpec } from "./query_message.ts";
export { expandedName, expandedRecord } from "./expanded_record.ts";
export { SVC_PARAM_KEY } from "./svcb_wire.ts";
export {
  decrementTtls,
  patchTtls,
  readTtlOffsets,
  type TtlOffsets,
} from "./ttl_offsets.ts";
export { TSIG_ERROR, unsignedTsigError } from "./tsig_error.ts";
export { WireFormatError } from "./wire_format_error.ts";
