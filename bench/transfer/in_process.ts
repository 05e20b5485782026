/**
 * kudurru's AXFR answer without a socket: the authoritative stage's
 * transfer stream for the benchmark zone, drained in-process, `--pulls`
 * times. Read against `run.ts`: what is left of a pull's time is the TCP
 * listener's (writes, the Worker's event loop).
 *
 *   deno run -A bench/transfer/in_process.ts [--records 100000] [--pulls 5]
 */
import { parseArgs } from "node:util";
import type { AnswerStream } from "../../src/pipeline/handler.ts";
import { buildRequest } from "../../src/pipeline/request_builder.ts";
import { createAuthoritativeStage } from "../../src/stages/authoritative/authoritative.ts";
import { snapshotOf } from "../../src/testing/fixtures.ts";
import { buildZoneContent } from "../../src/zone/content.ts";
import {
  TRANSFER_ZONE,
  transferRecordSets,
  transferZone,
} from "./transfer_zone.ts";
import { transferQuery, TransferReader } from "./xfr_client.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    records: { type: "string", default: "100000" },
    pulls: { type: "string", default: "5" },
  },
});
const records = Math.min(Math.max(Number(values.records) || 100_000, 10), 2e6);
const pulls = Math.min(Math.max(Number(values.pulls) || 5, 1), 50);

function print(text: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(text + "\n"));
}

const built = buildZoneContent(
  transferZone(1),
  transferRecordSets(records),
  new Date(),
);
const snapshot = snapshotOf([built.content]);
const stage = createAuthoritativeStage();

for (let pull = 1; pull <= pulls; pull++) {
  const began = performance.now();
  let stream: AnswerStream | undefined;
  const req = buildRequest(transferQuery(TRANSFER_ZONE, "AXFR", pull), {
    client: {
      address: "127.0.0.1",
      port: 5353,
      transport: "tcp",
      streams: (s) => (stream = s),
    },
    snapshot,
    node: snapshot.node,
    received: Date.now(),
  });
  const res = await stage.serve(req, () => {
    throw new Error("a transfer is not passed on");
  });
  if (res.stream === undefined) throw new Error(`no stream: ${res.status}`);
  req.client.streams!(res.stream);
  const messages: Uint8Array[] = [];
  for (
    let m = await stream!.next();
    m !== undefined;
    m = await stream!.next()
  ) {
    messages.push(m);
  }
  const ms = performance.now() - began;
  // Checked after the clock stops, with the benchmark client's own reader.
  const reader = new TransferReader("AXFR");
  const readBegan = performance.now();
  for (const m of messages) reader.add(m);
  const readMs = performance.now() - readBegan;
  if (!reader.done || reader.tally.records !== records + 1) {
    throw new Error(`${reader.tally.records} records, ${records + 1} due`);
  }
  print(
    `pull ${pull}: ${
      ms.toFixed(1)
    } ms for ${reader.tally.messages} messages, ${reader.tally.messageOctets} octets (${
      (ms * 1000 / records).toFixed(2)
    } µs a record); the client's reader took ${readMs.toFixed(1)} ms`,
  );
}
