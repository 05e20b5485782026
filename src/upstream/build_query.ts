/**
 * Builds the query sent upstream: one question, RD=1, the client's CD bit,
 * and an OPT record (payload 1232, the client's DO bit, an optional EDNS
 * Client Subnet option), left out for a server that does not take EDNS
 * (edns_support.ts).
 */
import { encodeQueryMessage } from "../dns/wire/query_message.ts";
import type { UpstreamRequest } from "./types.ts";

/**
 * The EDNS payload size we advertise: the DNS Flag Day 2020 value, small
 * enough to avoid IP fragmentation on every common path.
 */
export const UPSTREAM_UDP_PAYLOAD = 1232;

/** EDNS Client Subnet (RFC 7871). */
export const ECS_OPTION_CODE = 8;

/** A fresh random 16-bit message ID (RFC 5452 §9.2: unpredictable IDs). */
export function randomQueryId(): number {
  const word = new Uint16Array(1);
  crypto.getRandomValues(word);
  return word[0]!;
}

/**
 * Encodes the query for `request` with message ID `id`; `edns: false`
 * leaves the OPT record out (and with it the DO bit and any ECS option).
 *
 * @throws {TypeError} when the request's name is not a valid domain name
 */
export function buildQuery(
  request: UpstreamRequest,
  id: number,
  opts: { edns?: boolean } = {},
): Uint8Array {
  const options = request.clientSubnet === undefined
    ? []
    : [{ code: ECS_OPTION_CODE, data: request.clientSubnet }];
  const question = {
    name: request.name,
    type: request.type,
    class: request.class,
  };
  const spec = { id, question, rd: true, cd: request.checkingDisabled };
  return encodeQueryMessage(
    opts.edns === false ? spec : {
      ...spec,
      edns: {
        udpSize: UPSTREAM_UDP_PAYLOAD,
        dnssecOk: request.dnssecOk,
        options,
      },
    },
  );
}
