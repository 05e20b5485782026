/**
 * Whether a `kudurru serve` uses the data directory now (its control socket
 * answers, or it holds kudurru.lock), and who leads the elections.
 */
import { join } from "node:path";
import { askRunningServer } from "../server/control_socket.ts";
import { LOCK_FILE } from "../server/data_dir_lock.ts";
import { messageOf } from "../server/disk_errors.ts";
import { type Finding, ok, warn } from "./doctor_report.ts";

/** What doctor found out about a server on the data directory. */
export type ServerState =
  | {
    state: "running";
    /** How it was told: "its control socket answers", "it holds …". */
    how: string;
    /** From the control socket: the node name it runs as. */
    node?: string;
    startedAt?: string;
    pid?: number;
  }
  | { state: "stopped" }
  | { state: "unknown"; why: string };

/** Looks for a server on `dataDir`; never throws. */
export async function findServer(dataDir: string): Promise<ServerState> {
  const asked = await askRunningServer(dataDir);
  if (asked.state === "running") {
    const config = asked.running.config as { node?: { name?: unknown } };
    const node = config?.node?.name;
    return {
      state: "running",
      how: `its control socket ${asked.path} answers`,
      startedAt: asked.running.startedAt,
      ...(typeof node === "string" && { node }),
    };
  }
  const lock = await lockHolder(dataDir);
  if (lock.held) {
    return {
      state: "running",
      how: `it holds ${join(dataDir, LOCK_FILE)}`,
      ...(lock.pid !== undefined && { pid: lock.pid }),
    };
  }
  if (lock.why !== undefined) return { state: "unknown", why: lock.why };
  if (asked.state === "unknown") return { state: "unknown", why: asked.why };
  return { state: "stopped" };
}

/**
 * Whether another process holds serve's lock. A shared lock is taken and
 * dropped at once: that cannot disturb a running server, and a server
 * starting in that instant is told another holds the directory and exits,
 * which its supervisor retries. The file is never created here.
 */
export async function lockHolder(
  dataDir: string,
): Promise<{ held: boolean; pid?: number; why?: string }> {
  const path = join(dataDir, LOCK_FILE);
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { held: false };
    return { held: false, why: `Cannot open ${path}: ${messageOf(err)}` };
  }
  try {
    if (await file.tryLock(false)) {
      await file.unlock();
      return { held: false };
    }
  } finally {
    file.close();
  }
  const text = await Deno.readTextFile(path).catch(() => "");
  const pid = /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined;
  return pid === undefined ? { held: true } : { held: true, pid };
}

/** A running server in words: "kudurru serve (pid 12, started …)". */
export function serverText(server: ServerState & { state: "running" }): string {
  const facts = [
    server.pid !== undefined ? `pid ${server.pid}` : undefined,
    server.startedAt !== undefined ? `started ${server.startedAt}` : undefined,
  ].filter((f) => f !== undefined);
  return `kudurru serve${facts.length > 0 ? ` (${facts.join(", ")})` : ""}`;
}

/**
 * Who holds the elections (`controller`, `lists`). The sqlite store is one
 * node's, and that node always leads; so the question is only whether it
 * runs.
 */
export function leaderFinding(server: ServerState, node: string): Finding {
  const check = "leader";
  const store = "the sqlite store has one node, which leads every election";
  switch (server.state) {
    case "running":
      return ok(
        check,
        `this node (${server.node ?? node}): ${store}, and ${
          serverText(server)
        } holds them`,
      );
    case "stopped":
      return ok(
        check,
        `not running: ${store}; kudurru serve on this node (${node}) leads once started`,
      );
    case "unknown":
      return warn(
        check,
        `Cannot tell whether kudurru serve runs: ${server.why}; run doctor as the server's user`,
      );
  }
}
