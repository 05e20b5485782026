/**
 * The Worker that hashes and verifies passwords (Argon2id, argon2id.ts),
 * one at a time, for password_workers.ts: the main thread checks the
 * password's length, normalises it and checks the stored hash before it
 * posts a job here. A node:worker_threads Worker, so the pool can unref it
 * while idle. `deno compile` must include this file (`--include
 * src/auth/password_worker.ts`): it is only named by URL.
 */
import { parentPort, workerData } from "node:worker_threads";
import {
  argon2idHash,
  argon2idMatches,
  reuseArgon2Instances,
  wipeArgon2Memory,
} from "./argon2id.ts";
import type {
  PasswordWorkerData,
  PasswordWorkerIdle,
  PasswordWorkerReply,
  PasswordWorkerRequest,
} from "./password_workers.ts";

const port = parentPort!;
const { idleMs } = workerData as PasswordWorkerData;

// One Argon2 instance for every hash of this Worker (argon2id.ts), zeroed
// as each hash starts: hashes must therefore run one after another, which
// `queue` makes sure of.
reuseArgon2Instances();
let queue = Promise.resolve();

/** Says "idle" after idleMs without a request: the pool may end this Worker. */
let idleTimer: ReturnType<typeof setTimeout> | undefined;
function armIdleTimer(): void {
  clearTimeout(idleTimer);
  idleTimer = setTimeout(
    () => port.postMessage({ idle: true } satisfies PasswordWorkerIdle),
    idleMs,
  );
}

port.on("message", (request: PasswordWorkerRequest) => {
  clearTimeout(idleTimer);
  queue = queue.then(() => answer(request));
});

async function answer(request: PasswordWorkerRequest): Promise<void> {
  let reply: PasswordWorkerReply;
  try {
    const value = request.op === "hash"
      ? await argon2idHash(request.password)
      : await argon2idMatches(request.password, request.encoded);
    reply = { id: request.id, ok: true, value };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    reply = {
      id: request.id,
      ok: false,
      message: message.startsWith("Cannot ")
        ? message
        : `Cannot ${request.op} the password: ${message}`,
    };
  }
  port.postMessage(reply);
  wipeArgon2Memory(); // nothing derived from the password stays while idle
  armIdleTimer();
}
