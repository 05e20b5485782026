import assert from "node:assert/strict";
import { memoryLogger } from "../log/logger.ts";
import { FailureLog } from "./tcp.ts";

const emfile = new Error("Too many open files (os error 24)");
const messages = (logger: ReturnType<typeof memoryLogger>) =>
  logger.lines.map((line) => JSON.parse(line) as Record<string, unknown>);

Deno.test("accept failures are logged at most once a minute, the recovery too", () => {
  const logger = memoryLogger();
  const log = new FailureLog(logger, 60_000);
  // 20 a second, as the accept loop retries every 50 ms.
  for (let t = 0; t < 59_000; t += 50) log.failed(emfile, t);
  assert.deepEqual(messages(logger).map((m) => m.msg), ["TCP accept failed"]);
  log.failed(emfile, 60_000);
  assert.equal(messages(logger)[1]?.msg, "TCP accept failed");
  assert.equal(messages(logger)[1]?.failures, 1180);
  // Recovered within the minute: said at the first success after it.
  log.succeeded(60_050);
  assert.equal(logger.lines.length, 2);
  log.succeeded(120_000);
  assert.equal(messages(logger)[2]?.msg, "TCP accept works again");
  log.succeeded(120_050);
  assert.equal(logger.lines.length, 3);
});

Deno.test("accepts that fail and work in turn log one line a minute", () => {
  // A descriptor freed now and then lets one accept through.
  const logger = memoryLogger();
  const log = new FailureLog(logger, 60_000);
  for (let t = 0; t < 180_000; t += 25) {
    if (t % 50 === 0) log.failed(emfile, t);
    else log.succeeded(t);
  }
  assert.ok(logger.lines.length <= 3, `${logger.lines.length} lines`);
  assert.ok(logger.lines.length >= 2);
});
