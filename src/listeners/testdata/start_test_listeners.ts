/**
 * startDnsListeners as the listener tests run it: 127.0.0.1, UDP and TCP on
 * one ephemeral port, workers with the small test handler; `await using`
 * stops them.
 */
import { memoryLogger } from "../../log/logger.ts";
import { type DnsListenersOptions, startDnsListeners } from "../listeners.ts";

const TEST_WORKER = new URL("./test_worker_entry.ts", import.meta.url);

export async function startTestListeners(
  extra: Partial<DnsListenersOptions> = {},
) {
  const listeners = await startDnsListeners({
    listeners: [{ address: "127.0.0.1:0", protocols: ["udp", "tcp"] }],
    nodeName: "test",
    version: "0.0.0-test",
    logger: memoryLogger(),
    workerUrl: TEST_WORKER,
    ...extra,
  });
  return Object.assign(listeners, {
    [Symbol.asyncDispose]: () => listeners.stop(),
  });
}
