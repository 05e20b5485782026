import assert from "node:assert/strict";
import { memoryLogger } from "../log/logger.ts";
import { FailureLog } from "./tcp.ts";

Deno.test("accept failures are logged once, then counted once a minute, then the recovery", () => {
  const logger = memoryLogger();
  const log = new FailureLog(logger, 60_000);
  const emfile = new Error("Too many open files (os error 24)");
  // 20 a second, as the accept loop retries every 50 ms.
  for (let t = 0; t < 59_000; t += 50) log.failed(emfile, t);
  assert.equal(logger.lines.length, 1);
  assert.match(logger.lines[0]!, /tcp accept failed/);
  log.failed(emfile, 60_000);
  assert.equal(logger.lines.length, 2);
  assert.match(logger.lines[1]!, /tcp accept still failing/);
  assert.match(logger.lines[1]!, /"failuresNotLogged":1179/);
  log.succeeded();
  log.succeeded();
  assert.equal(logger.lines.length, 3);
  assert.match(logger.lines[2]!, /tcp accept works again.*"failures":1181/);
  // A new outage is logged at once.
  log.failed(emfile, 61_000);
  assert.match(logger.lines[3]!, /tcp accept failed/);
});
