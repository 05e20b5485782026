/**
 * A child process for http_listener_test.ts, run under a low RLIMIT_NOFILE:
 * serves listenHttp, says its port, then takes every free file descriptor
 * until told on stdin to give them back (so its accept loop fails).
 */
import { memoryLogger } from "../../log/logger.ts";
import { listenHttp } from "../http_listener.ts";

const logger = memoryLogger();
const listener = listenHttp({
  name: "test",
  setting: "listeners.test.address",
  hostname: "127.0.0.1",
  port: 0,
  handler: () => new Response("ok\n"),
  logger,
});
const files: Deno.FsFile[] = [];
try {
  for (;;) files.push(Deno.openSync("/dev/null"));
} catch {
  // out of descriptors: the next connection fails the accept loop
}
const say = (line: string) =>
  Deno.stdout.writeSync(new TextEncoder().encode(line + "\n"));
say(`port ${listener.addr.port}`);
const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
for await (const chunk of lines) {
  if (chunk.includes("release")) {
    for (const file of files) file.close();
    files.length = 0;
  }
  if (chunk.includes("log")) say(`log ${JSON.stringify(logger.lines)}`);
  if (chunk.includes("stop")) break;
}
await listener.stop();
