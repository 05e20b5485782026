import { deepEqual } from "node:assert/strict";
import {
  cnameChain,
  type Entry,
  filtersOf,
  MAX_LIVE_ROWS,
  mergeLive,
} from "./querylog_state.ts";

const entry = (qname: string, port = 1): Entry => ({
  time: "2026-01-01T00:00:00.000Z",
  node: "a",
  client: "192.0.2.1",
  clientPort: port,
  transport: "udp",
  groups: [],
  qname,
  qtype: "A",
  qclass: "IN",
  rcode: "NOERROR",
  status: "forwarded",
  stage: "upstream",
  dnssecOk: false,
  authenticData: false,
  answer: "",
  responseSize: 50,
  durationUs: 100,
});

Deno.test("filtersOf keeps the API's filters from a URL and drops empty ones", () => {
  deepEqual(
    filtersOf(
      new URLSearchParams("client=192.0.2.1&domain=%20&status=blocked&page=3"),
    ),
    { client: "192.0.2.1", status: "blocked" },
  );
});

Deno.test("mergeLive puts new events on top, newest first, once each, up to the cap", () => {
  const seen = new Set<string>();
  let rows = mergeLive([], [entry("a."), entry("b.")], seen);
  deepEqual(rows.map((e) => e.qname), ["b.", "a."]);
  rows = mergeLive(rows, [entry("b."), entry("c.")], seen);
  deepEqual(rows.map((e) => e.qname), ["c.", "b.", "a."]);
  const many = Array.from(
    { length: MAX_LIVE_ROWS },
    (_, i) => entry("x.", i + 10),
  );
  rows = mergeLive(rows, many, seen);
  deepEqual(rows.length, MAX_LIVE_ROWS);
  deepEqual(rows[0]!.clientPort, MAX_LIVE_ROWS + 9);
});

Deno.test("cnameChain reads the names an answer went through", () => {
  deepEqual(
    cnameChain("CNAME a.example., CNAME b.example., A 192.0.2.1"),
    ["a.example.", "b.example."],
  );
  deepEqual(cnameChain("A 192.0.2.1"), []);
  deepEqual(cnameChain(""), []);
});
