import assert from "node:assert/strict";
import { parseDnsperfReport } from "./dnsperf_pass.ts";

const REPORT = `Statistics:

  Queries sent:         841893
  Queries completed:    841880 (100.00%)
  Queries lost:         13 (0.00%)

  Response codes:       NOERROR 841870 (100.00%), SERVFAIL 10 (0.00%)
  Average packet size:  request 33, response 49
  Run time (s):         10.000120
  Queries per second:   84187.0
`;

Deno.test("parseDnsperfReport reads counts, NOERROR and q/s", () => {
  assert.deepEqual(parseDnsperfReport(REPORT), {
    sent: 841893,
    completed: 841880,
    lost: 13,
    noerror: 841870,
    qps: 84187,
  });
});

Deno.test("parseDnsperfReport counts no NOERROR when none came back", () => {
  const report = REPORT.replace(
    /Response codes:[^\n]*/,
    "Response codes: SERVFAIL 5 (100.00%)",
  );
  assert.equal(parseDnsperfReport(report)?.noerror, 0);
});

Deno.test("parseDnsperfReport returns null without a statistics block", () => {
  assert.equal(parseDnsperfReport("Error: input file contains no data"), null);
});
