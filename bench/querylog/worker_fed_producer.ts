/**
 * worker_fed.ts's producer: records `rate` events a second as a listener
 * under dnsperf would (10,000 names asked in turn) and posts them every
 * 250 ms, arrays transferred; the arrays the writer is done with come back
 * to be filled again.
 */
import { QueryEventPacker } from "../../src/pipeline/query_event_pack.ts";

const NAMES = 10_000;
const scope = globalThis as unknown as {
  onmessage:
    | ((
      m: MessageEvent<
        { rate: number } | { times: Float64Array; ints: Int32Array }
      >,
    ) => void)
    | null;
  postMessage(message: unknown, transfer: Transferable[]): void;
};

const packer = new QueryEventPacker(1024);

scope.onmessage = ({ data }) => {
  if ("times" in data) return packer.recycle(data.times, data.ints);
  let n = 0;
  setInterval(() => {
    for (let i = 0; i < data.rate / 4; i++, n++) {
      const k = n % NAMES;
      // Built per event, as a decoded query's strings are.
      packer.add({
        time: Date.now(),
        node: "bench",
        clientAddress: `127.0.0.${1 + (n % 3)}`,
        clientPort: 30_000 + (n % 20_000),
        transport: "udp",
        groups: [],
        qname: `host${k}.bench.example.`,
        qtype: 1,
        qclass: 1,
        rcode: 0,
        status: "authoritative",
        stage: "authoritative",
        dnssecOk: false,
        authenticData: false,
        answer: `A 192.0.${k >> 8}.${k & 255}`,
        responseSize: 60,
        durationUs: 20,
      });
    }
    const batch = packer.take();
    scope.postMessage(batch, [
      batch.times.buffer as ArrayBuffer,
      batch.ints.buffer as ArrayBuffer,
    ]);
  }, 250);
};
