import assert from "node:assert/strict";
import type { QueryEvent } from "../pipeline/query_event.ts";
import type { LoggedEvent } from "../querylog/event_rows.ts";
import { queryEvent, queryLogDataDir, T0 } from "../querylog/test_support.ts";
import { bufferIO } from "./command.ts";
import { makeQuerylogCommand } from "./querylog.ts";

/** A data directory with `events` in its query log, removed on dispose. */
const dataDir = (events: QueryEvent[]) =>
  queryLogDataDir(events, "kudurru-cli-table-");

async function run(args: string[]) {
  const b = bufferIO();
  await makeQuerylogCommand({ now: () => T0 + 60_000 }).run(args, b.io);
  return { stdout: b.stdout() };
}

Deno.test("kudurru querylog shows the rcode and a class that is not IN, and filters by them", async (t) => {
  const nxdomain = queryEvent({
    time: T0 + 4000,
    qname: "nowhere.example.",
    rcode: 3,
  });
  const chaos = queryEvent({
    time: T0 + 5000,
    qname: "version.bind.",
    qtype: 16,
    qclass: 3,
    status: "local_record",
    stage: "local",
  });
  delete chaos.upstream;
  const aaaa = queryEvent({
    time: T0 + 3000,
    qname: "ads.tracker.example.",
    qtype: 28,
  });
  // Nothing was sent (a rate-limited drop): no response code to show.
  const dropped = queryEvent({
    time: T0 + 2000,
    qname: "flood.example.",
    rcode: -1,
    status: "rate_limited",
    stage: "ingress",
  });
  delete dropped.upstream;
  await using data = await dataDir([dropped, aaaa, nxdomain, chaos]);
  await t.step("table", async () => {
    const lines = (await run(["--data-dir", data.dir])).stdout.split("\n");
    assert.match(lines[1]!, /version\.bind\.\s+CH TXT\s+NOERROR\s+local/);
    assert.match(lines[2]!, /nowhere\.example\.\s+A\s+NXDOMAIN\s+forwarded/);
    assert.match(lines[4]!, /flood\.example\.\s+A\s+-\s+rate_limited/);
  });
  const qnames = async (...args: string[]) =>
    (JSON.parse(
      (await run(["--data-dir", data.dir, "-o", "json", ...args]))
        .stdout,
    ).events as LoggedEvent[]).map((e) => e.qname);
  await t.step("--rcode", async () => {
    assert.deepEqual(await qnames("--rcode", "nxdomain"), ["nowhere.example."]);
    assert.deepEqual(await qnames("--rcode", "3,SERVFAIL"), [
      "nowhere.example.",
    ]);
  });
  await t.step("--type", async () => {
    assert.deepEqual(await qnames("--type", "aaaa"), ["ads.tracker.example."]);
    assert.deepEqual(await qnames("--type", "16"), ["version.bind."]);
    assert.deepEqual(await qnames("--type", "TXT", "--rcode", "NXDOMAIN"), []);
  });
});
