/**
 * What tests that run kudurru as a process share: the serve task's flags
 * (so they break when the README command would), a CLI runner and a reader
 * of a server's log.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import denoJson from "../../deno.json" with { type: "json" };

const MAIN = join(import.meta.dirname!, "..", "..", "main.ts");

/** The flags of the serve task: its permissions, never -A. */
export function serveTaskFlags(): string[] {
  const task = denoJson.tasks.serve.split(/\s+/);
  const runAt = task.indexOf("run");
  const mainAt = task.indexOf("main.ts");
  assert.ok(
    runAt >= 0 && mainAt > runAt,
    "the serve task runs main.ts with deno run",
  );
  assert.ok(
    !task.includes("-A") && !task.includes("--allow-all"),
    "the serve task never uses -A",
  );
  return task.slice(runAt + 1, mainAt);
}

/** Collects a child's output as text, and waits for a line in it. */
export class LogReader {
  text = "";
  #reading: Promise<void>;
  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reading = (async () => {
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
        this.text += chunk;
      }
    })();
  }
  async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.text)) {
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for ${pattern}; log:\n${this.text}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  done(): Promise<void> {
    return this.#reading;
  }
}

/** A kudurru command run in `cwd` with the serve task's flags (or `flags`). */
export async function runKudurru(
  cwd: string,
  args: string[],
  flags: string[] = serveTaskFlags(),
) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, MAIN, ...args],
    cwd,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}
