/**
 * The routing rule of target.ts on real contexts files: --context is the
 * API, --data-dir or --config this machine, and without either the current
 * context when there is one.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { UsageError } from "./command.ts";
import { writeContexts } from "./contexts.ts";
import { resolveTarget } from "./target.ts";

const lab = { name: "lab", server: "http://127.0.0.1:1", token: "kdr_a_b" };

function ioOf(env: Record<string, string>) {
  return {
    stdout: () => {},
    stderr: () => {},
    readStdin: () => Promise.resolve(""),
    env: (name: string) => env[name],
  };
}

Deno.test("resolveTarget: the current context unless --data-dir or --config say this machine", async () => {
  const config = await Deno.makeTempDir({ prefix: "kudurru-target-" });
  try {
    const io = ioOf({ XDG_CONFIG_HOME: config });
    // Nobody logged in: this machine.
    assert.equal((await resolveTarget("get", {}, io)).kind, "local");
    // No HOME at all (a service): this machine too.
    assert.equal((await resolveTarget("get", {}, ioOf({}))).kind, "local");

    await writeContexts(join(config, "kudurru", "contexts.yaml"), {
      contexts: [lab],
    });
    // Contexts, but none current: still this machine.
    assert.equal((await resolveTarget("get", {}, io)).kind, "local");

    await writeContexts(join(config, "kudurru", "contexts.yaml"), {
      current: "lab",
      contexts: [lab],
    });
    assert.deepEqual(await resolveTarget("get", {}, io), {
      kind: "api",
      context: lab,
    });
    const local = await resolveTarget("get", { "data-dir": "/d" }, io);
    assert.deepEqual(local, {
      kind: "local",
      store: { "data-dir": "/d", config: undefined },
    });
    assert.equal(
      (await resolveTarget("get", { config: "/k.yaml" }, io)).kind,
      "local",
    );
    assert.deepEqual(
      await resolveTarget("get", { context: "lab" }, io),
      { kind: "api", context: lab },
    );
    await assert.rejects(
      resolveTarget("get", { context: "lab", "data-dir": "/d" }, io),
      (err) =>
        err instanceof UsageError &&
        /--context works on a server's API/.test(err.message),
    );
    await assert.rejects(
      resolveTarget("get", { context: "nope" }, io),
      /there is no context "nope" \(there are: lab\)/,
    );

    // A broken file is not quietly taken for "not logged in".
    await Deno.writeTextFile(
      join(config, "kudurru", "contexts.yaml"),
      "current: [\n",
    );
    await assert.rejects(
      resolveTarget("get", {}, io),
      /is not a valid contexts file/,
    );
  } finally {
    await Deno.remove(config, { recursive: true });
  }
});
