/** The query event the test worker entries record: an A answer for `qname`. */
import type { QueryEvent } from "../../pipeline/query_event.ts";

export function testQueryEvent(qname: string): QueryEvent {
  return {
    time: Date.now(),
    node: "test",
    clientAddress: "127.0.0.1",
    clientPort: 5300,
    transport: "udp",
    groups: [],
    qname,
    qtype: 1,
    qclass: 1,
    rcode: 0,
    status: "authoritative",
    stage: "authoritative",
    dnssecOk: false,
    authenticData: false,
    answer: "A 192.0.2.1",
    responseSize: 45,
    durationUs: 10,
  };
}
