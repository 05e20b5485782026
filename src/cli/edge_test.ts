/**
 * `kudurru edge`: render prints or writes the Lua, usage errors say what to
 * change, and run (a real process, so real signals) supervises dnsdist,
 * serves the probes, follows a backends file and passes SIGTERM on.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { bufferIO, UsageError } from "./command.ts";
import { edgeCommand } from "./edge.ts";
import { freePort } from "../testing/free_port.ts";
import { query } from "../testing/dns_client.ts";
import {
  eventually,
  probe,
  startUnboundPeer,
  type UnboundPeer,
} from "../edge/test_kit.ts";

async function withDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-edge-cli-" });
  try {
    return await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function secretIn(dir: string): Promise<string> {
  const file = join(dir, "secret");
  await Deno.writeTextFile(file, "a-secret-of-at-least-32-bytes-here\n");
  return file;
}

Deno.test("edge render prints the Lua, with the credentials in comments", async () => {
  await withDir(async (dir) => {
    const out = bufferIO();
    const code = await edgeCommand.run([
      "render",
      "--backends",
      "10.0.0.1,10.0.0.2:5300",
      "--proxy-secret-file",
      await secretIn(dir),
      "--listen",
      "127.0.0.1:5353",
      "--listen",
      "[::1]:5353",
    ], out.io);
    assert.equal(code, 0);
    const lua = out.stdout();
    assert.match(lua, /^setLocal\("127\.0\.0\.1:5353"\)$/m);
    assert.match(lua, /^addLocal\("\[::1\]:5353"\)$/m);
    assert.equal(lua.match(/^newServer\(/gm)?.length, 2);
    assert.match(lua, /^-- webserver password: \S{43}$/m);
    assert.match(lua, /^-- API key \(header X-API-Key\): \S{43}$/m);
  });
});

Deno.test("edge render --out writes a private file", async () => {
  await withDir(async (dir) => {
    const out = bufferIO();
    const file = join(dir, "dnsdist.conf");
    const code = await edgeCommand.run([
      "render",
      "--backends",
      "10.0.0.1",
      "--proxy-secret-file",
      await secretIn(dir),
      "--out",
      file,
    ], out.io);
    assert.equal(code, 0);
    assert.equal(out.stdout(), "");
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    assert.match(
      await Deno.readTextFile(file),
      /^setSecurityPollSuffix\(""\)$/m,
    );
  });
});

Deno.test("edge usage errors say what to change", async () => {
  await withDir(async (dir) => {
    const secret = await secretIn(dir);
    const cases: [string[], RegExp][] = [
      [[], /name a subcommand: render or run/],
      [["start"], /unknown subcommand "start"/],
      [
        ["render", "--proxy-secret-file", secret],
        /give --backends or --backends-file/,
      ],
      [[
        "render",
        "--backends",
        "10.0.0.1",
        "--backends-file",
        join(dir, "b"),
        "--proxy-secret-file",
        secret,
      ], /one of them/],
      [[
        "render",
        "--backends",
        "10.0.0.1",
        "--proxy-secret-file",
        secret,
        "--api",
        "0.0.0.0:8083",
      ], /--api must be a loopback address/],
      [["render", "--backends", "10.0.0.1"], /--proxy-secret-file is required/],
      [["render", "--bogus"], /bogus/],
      [[
        "run",
        "--backends",
        "10.0.0.1",
        "--proxy-secret-file",
        secret,
        "--ready",
        "nowhere",
      ], /--ready/],
    ];
    for (const [args, message] of cases) {
      await assert.rejects(
        () => edgeCommand.run(args, bufferIO().io),
        (e: unknown) => e instanceof UsageError && message.test(e.message),
        args.join(" "),
      );
    }
  });
});

/** Kills, by process id, any dnsdist left running from `runDir`. */
function killDnsdistOf(runDir: string): void {
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
      if (cmdline.startsWith("dnsdist\0") && cmdline.includes(runDir)) {
        Deno.kill(Number(entry.name), "SIGKILL");
      }
    } catch {
      // Gone meanwhile.
    }
  }
}

const REPO = fileURLToPath(new URL("../..", import.meta.url));

/** `kudurru edge ARGS` as its own process, as main.ts would run it. */
function spawnEdge(args: string[]): Deno.ChildProcess {
  const code = 'import { edgeCommand } from "./src/cli/edge.ts";' +
    'import { processIO } from "./src/cli/command.ts";' +
    "Deno.exit(await edgeCommand.run(Deno.args, processIO));";
  return new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", code, ...args],
    cwd: REPO,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

Deno.test("edge run supervises dnsdist, follows the backends file and passes SIGTERM on", async () => {
  await withDir(async (dir) => {
    const peers: UnboundPeer[] = [];
    let child: Deno.ChildProcess | undefined;
    let output: Promise<string> | undefined;
    try {
      peers.push(await startUnboundPeer({ answer: "192.0.2.1" }));
      peers.push(await startUnboundPeer({ answer: "192.0.2.2" }));
      const [a, b] = peers;
      const backends = join(dir, "backends");
      await Deno.writeTextFile(backends, `# the nodes\n127.0.0.1:${a!.port}\n`);
      const dnsPort = freePort();
      const readyPort = freePort();
      child = spawnEdge([
        "run",
        "--backends-file",
        backends,
        "--proxy-secret-file",
        await secretIn(dir),
        "--listen",
        `127.0.0.1:${dnsPort}`,
        "--acl",
        "127.0.0.0/8",
        "--api",
        `127.0.0.1:${freePort()}`,
        "--console",
        `127.0.0.1:${freePort()}`,
        "--ready",
        `127.0.0.1:${readyPort}`,
        "--run-dir",
        join(dir, "run"),
      ]);
      const decode = (s: ReadableStream<Uint8Array>) => new Response(s).text();
      output = Promise.all([decode(child.stdout), decode(child.stderr)]).then((
        [o, e],
      ) => o + e);
      const ready = await eventually("the edge ready", async () => {
        const r = await probe(`http://127.0.0.1:${readyPort}/healthz/ready`);
        return r.status === 200 ? r : undefined;
      }, 30_000);
      assert.match(ready.body, /^ready: 1 of 1 backends up/);
      const answer = async () =>
        String(
          (await query(dnsPort, "www.test.", "A", { timeoutMs: 1000 }))
            .answers[0]?.data,
        );
      assert.equal(await answer(), "192.0.2.1");
      const conf = await Deno.readTextFile(join(dir, "run", "dnsdist.conf"));
      assert.ok(conf.includes(`127.0.0.1:${a!.port}`));

      // A membership change: the file now names B; dnsdist restarts after
      // the 5 s debounce.
      await Deno.writeTextFile(backends, `127.0.0.1:${b!.port}\n`);
      await eventually("B answering", async () => {
        return await answer() === "192.0.2.2" ? true : undefined;
      }, 30_000);

      child.kill("SIGTERM");
      const status = await child.status;
      child = undefined;
      const text = await output;
      assert.equal(status.code, 143, text);
      assert.match(text, /Stopping dnsdist.*signal=SIGTERM/);
      assert.match(text, /dnsdist stopped .*code=143 signal=SIGTERM/);
      const stopped = await probe(`http://127.0.0.1:${readyPort}/healthz/live`)
        .catch(() => null);
      assert.equal(stopped, null, "the probes are gone");
    } finally {
      if (child) {
        // A failed assertion: SIGTERM first, so the edge stops its dnsdist.
        child.kill("SIGTERM");
        const timer = setTimeout(() => child!.kill("SIGKILL"), 10_000);
        await child.status;
        clearTimeout(timer);
        await output;
        killDnsdistOf(join(dir, "run"));
      }
      await Promise.all(peers.map((p) => p.stop()));
    }
  });
});
