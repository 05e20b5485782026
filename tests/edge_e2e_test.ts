/**
 * kudurru behind the real dnsdist, started by `kudurru edge run` (the
 * `edge` task's permissions): a client at 127.0.0.2 asks dnsdist, dnsdist
 * passes the query on with a PROXYv2 header carrying the shared secret, and
 * kudurru's query log names 127.0.0.2, not dnsdist. Lameduck (SIGTERM) then
 * fails kudurru's health name, and dnsdist takes the backend out: the
 * edge's readiness goes to 503.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startKudurru } from "../src/testing/kudurru_server.ts";
import { freePort } from "../src/testing/free_port.ts";
import { query } from "../src/testing/dns_client.ts";
import { cli, eventually, object } from "./blocking/e2e_helpers.ts";

const ROOT = join(import.meta.dirname!, "..");

/** The `edge` task's flags (deno.json), so the test runs what users run. */
function edgeTaskFlags(): string[] {
  const tasks = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json")))
    .tasks as Record<string, string>;
  const words = tasks.edge!.split(/\s+/);
  return words.slice(2, words.indexOf("main.ts"));
}

function stop(child: Deno.ChildProcess | undefined): void {
  try {
    child?.kill("SIGTERM");
  } catch {
    // already gone
  }
}

async function ready(url: string): Promise<number> {
  try {
    const res = await fetch(url);
    await res.body?.cancel();
    return res.status;
  } catch {
    return 0;
  }
}

Deno.test("a query through dnsdist under kudurru edge run is logged with the real client address; lameduck drains the backend", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-edge-e2e-" });
  const secretFile = join(dir, "proxy-secret");
  await Deno.writeTextFile(
    secretFile,
    btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(48)))) +
      "\n",
  );
  let edge: Deno.ChildProcess | undefined;
  /** What `kudurru edge run` logged, read as it goes (a full pipe would stall it). */
  let edgeLog = Promise.resolve("");
  try {
    await using kudurru = await startKudurru({
      objects: [
        object("DNSZone", "local-test", {
          zoneName: "local.test.",
          type: "primary",
        }),
      ],
      readyZone: "local.test.",
      upstreamPort: freePort(),
      listeners: {
        proxyProtocolFrom: ["127.0.0.1/32"],
        proxyProtocolSecretFile: secretFile,
      },
    });
    const dnsPort = freePort();
    const readyPort = freePort();
    edge = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...edgeTaskFlags(),
        join(ROOT, "main.ts"),
        "edge",
        "run",
        "--backends",
        `127.0.0.1:${kudurru.port}`,
        "--listen",
        `127.0.0.1:${dnsPort}`,
        "--api",
        `127.0.0.1:${freePort()}`,
        "--console",
        `127.0.0.1:${freePort()}`,
        "--proxy-secret-file",
        secretFile,
        "--ready",
        `127.0.0.1:${readyPort}`,
        "--run-dir",
        join(dir, "edge"),
      ],
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    edgeLog = new Response(edge.stderr).text();
    const readyUrl = `http://127.0.0.1:${readyPort}/healthz/ready`;
    // Up once dnsdist's health check (health.kudurru.internal. TXT, sent
    // with a LOCAL header) finds kudurru.
    await eventually(
      "dnsdist sees kudurru up",
      async () => await ready(readyUrl) === 200,
      () => kudurru.output().slice(-3000),
      20_000,
    );

    // A name only this query asks, so its events are this query's.
    const answer = await query(dnsPort, "via-edge.local.test.", "A", {
      from: "127.0.0.2",
    });
    assert.equal(answer.rcode, "NXDOMAIN");
    assert.equal(answer.authorities[0]?.type, "SOA");
    let seen = "";
    await eventually("the query log names 127.0.0.2", async () => {
      const log = JSON.parse(
        seen = await cli(
          "querylog",
          "--domain",
          "via-edge.local.test",
          "-o",
          "json",
          "--data-dir",
          kudurru.dataDir,
        ),
      ) as { events: { clientAddress: string; transport: string }[] };
      // dnsdist (127.0.0.1) passed it on; the client is the one it named.
      return log.events.length > 0 &&
        log.events.every((e) =>
          e.clientAddress === "127.0.0.2" && e.transport === "udp"
        );
    }, () => seen);

    // Lameduck: kudurru keeps answering for its grace period, but its
    // health name fails, so dnsdist marks it down and the edge is unready.
    Deno.kill(kudurru.pid, "SIGTERM");
    await eventually(
      "dnsdist drains kudurru",
      async () => await ready(readyUrl) === 503,
      () => "",
      5_000,
    );
  } catch (error) {
    // What dnsdist and its supervisor said is the clue to most failures.
    stop(edge);
    const log = await edgeLog;
    throw new Error(
      `${(error as Error).message}\nkudurru edge run logged:\n${log}`,
      { cause: error },
    );
  } finally {
    if (edge !== undefined) {
      stop(edge);
      await edge.status;
      await edgeLog;
    }
    await Deno.remove(dir, { recursive: true });
  }
});
