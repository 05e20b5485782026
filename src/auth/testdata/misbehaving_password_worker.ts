/**
 * A password Worker (password_workers_test.ts) that answers "hash" jobs at
 * once with `hashed:<password>`, except for these passwords: "crash"
 * throws (an uncaught error ends the Worker), "exit" stops listening (the
 * Worker ends, exit code 0, with the job unanswered), "hang" never answers.
 * Says "idle" as password_worker.ts does.
 */
import { parentPort, workerData } from "node:worker_threads";
import type {
  PasswordWorkerData,
  PasswordWorkerRequest,
} from "../password_workers.ts";

const port = parentPort!;
const { idleMs } = workerData as PasswordWorkerData;
let idleTimer: ReturnType<typeof setTimeout> | undefined;

function onMessage(request: PasswordWorkerRequest): void {
  clearTimeout(idleTimer);
  switch (request.password) {
    case "crash":
      throw new Error("a crash on purpose");
    case "exit":
      port.off("message", onMessage);
      return;
    case "hang":
      return;
  }
  port.postMessage({
    id: request.id,
    ok: true,
    value: `hashed:${request.password}`,
  });
  idleTimer = setTimeout(() => port.postMessage({ idle: true }), idleMs);
}

port.on("message", onMessage);
