/**
 * What the blocking end-to-end tests share: objects in the default
 * namespace, the kudurru CLI run as a user would, and waiting for what
 * reaches workers or the query log asynchronously.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { API_VERSION, type KObject } from "../../src/api/v1alpha1/meta.ts";

const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));

/** A kudurru.io object named `name` in the default namespace. */
export function object(kind: string, name: string, spec: unknown): KObject {
  return {
    apiVersion: API_VERSION,
    kind,
    metadata: { name, namespace: "default" },
    spec,
  } as KObject;
}

/**
 * The objects that put a client with client ID "phone" in group "phones",
 * whose Policy (priority 10) answers NXDOMAIN for `name`: what the
 * encrypted transports' tests select by a client ID.
 */
export function phoneGroupObjects(name: string): KObject[] {
  return [
    object("BlockList", "phone-ads", { sources: [{ inline: `${name}\n` }] }),
    object("ClientGroup", "phones", { clients: [{ clientID: "phone" }] }),
    object("Policy", "phones", {
      clientGroupRefs: ["phones"],
      blockListRefs: ["phone-ads"],
      blockMode: "nxdomain",
      priority: 10,
    }),
  ];
}

/** Runs `kudurru ARGS…`; its output (stdout, then stderr), once it exited 0. */
export async function cli(...args: string[]): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, ...args],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) +
    new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, text);
  return text;
}

/**
 * Asks until `attempt` passes (settings reach the workers, and events the
 * query log, asynchronously); a timeout names `what` and shows `output()`.
 */
export async function eventually(
  what: string,
  attempt: () => Promise<boolean>,
  output: () => string = () => "",
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await attempt())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out: ${what}; log:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
