/**
 * The supervisor with the real dnsdist (Debian's 1.7) on loopback, in front
 * of Unbound reading PROXYv2: queries pass with the client's address,
 * SIGTERM reaches dnsdist, a dnsdist that dies is started again, a change
 * of backends restarts it after the debounce, and a configuration dnsdist
 * refuses leaves the running one alone.
 */
import assert from "node:assert/strict";
import { memoryLogger } from "../log/logger.ts";
import { query } from "../testing/dns_client.ts";
import { freePort } from "../testing/free_port.ts";
import {
  eventually,
  probe,
  startTestEdge,
  startUnboundPeer,
  type UnboundPeer,
} from "./test_kit.ts";
import { renderDnsdistLua } from "./dnsdist_lua.ts";
import { dnsdistReadiness } from "./readiness.ts";

async function answerOf(port: number, from = "127.0.0.1"): Promise<string> {
  const reply = await query(port, "www.test.", "A", { from, timeoutMs: 1000 });
  assert.equal(reply.rcode, "NOERROR");
  return String(reply.answers[0]?.data);
}

function processGone(pid: number): boolean {
  try {
    Deno.statSync(`/proc/${pid}`);
    return false;
  } catch {
    return true;
  }
}

async function withPeers<T>(
  peers: Promise<UnboundPeer>[],
  body: (peers: UnboundPeer[]) => Promise<T>,
): Promise<T> {
  const settled = await Promise.allSettled(peers);
  const started = settled.flatMap((s) =>
    s.status === "fulfilled" ? [s.value] : []
  );
  try {
    const failed = settled.find((s) => s.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return await body(started);
  } finally {
    await Promise.all(started.map((p) => p.stop()));
  }
}

Deno.test("dnsdist passes queries with the client's address over PROXYv2 and stops on SIGTERM", async () => {
  await withPeers([startUnboundPeer()], async ([peer]) => {
    const edge = await startTestEdge({
      backends: [`127.0.0.1:${peer!.port}`],
    });
    let pid: number | undefined;
    try {
      pid = edge.supervisor.pid;
      assert.ok(pid !== undefined);
      const mode = Deno.statSync(edge.supervisor.configPath).mode! & 0o777;
      assert.equal(mode, 0o600);
      await eventually("readiness 200", async () => {
        const r = await probe(`${edge.probesUrl}/healthz/ready`);
        return r.status === 200 ? r : undefined;
      });
      // The API takes the per-start key (stored as its scrypt hash) only.
      const wrong = await dnsdistReadiness({
        ...edge.supervisor.api()!,
        apiKey: "not-the-key",
      });
      assert.equal(wrong.ready, false);
      assert.match(wrong.reason, /HTTP 401/);
      assert.equal(await answerOf(edge.dnsPort, "127.0.0.2"), "192.0.2.1");
      // Unbound took the client's address from dnsdist's PROXY header.
      await eventually(
        "Unbound logging the query",
        () => peer!.clientsOf("www.test.").length > 0 ? true : undefined,
      );
      assert.deepEqual(peer!.clientsOf("www.test."), ["127.0.0.2"]);
      // Health checks come from dnsdist itself (a PROXY LOCAL header).
      assert.ok(peer!.clientsOf("health.kudurru.internal.").length > 0);
    } finally {
      const code = await edge.stop();
      assert.equal(code, 143, "dnsdist ended by the SIGTERM it was sent");
    }
    assert.ok(processGone(pid!), "dnsdist is gone");
    assert.equal(edge.supervisor.live, false);
  });
});

Deno.test("readiness is 503 while no backend is up and 200 once one is", async () => {
  const port = freePort();
  const edge = await startTestEdge({ backends: [`127.0.0.1:${port}`] });
  try {
    const live = await probe(`${edge.probesUrl}/healthz/live`);
    assert.equal(live.status, 200);
    // dnsdist's first health check fails: nothing listens on the port.
    const down = await eventually("dnsdist's API answering", async () => {
      const r = await probe(`${edge.probesUrl}/healthz/ready`);
      return r.body.includes("no backend is up") ? r : undefined;
    });
    assert.equal(down.status, 503);
    assert.match(down.body, /kudurru-127-0-0-1-\d+/);
    // With no backend up, clients get SERVFAIL at once rather than silence.
    const servfail = await query(edge.dnsPort, "www.test.", "A", {
      timeoutMs: 1000,
    });
    assert.equal(servfail.rcode, "SERVFAIL");
    await withPeers([startUnboundPeer({ port })], async () => {
      const up = await eventually("readiness 200", async () => {
        const r = await probe(`${edge.probesUrl}/healthz/ready`);
        return r.status === 200 ? r : undefined;
      });
      assert.match(up.body, /^ready: 1 of 1 backends up/);
      assert.equal(await answerOf(edge.dnsPort), "192.0.2.1");
    });
  } finally {
    await edge.stop();
  }
  const after = await probe(`${edge.probesUrl}/healthz/live`).catch(() => null);
  assert.equal(after, null, "the probes stopped with the supervisor");
});

Deno.test("a dnsdist health check that fails (no TXT answer) keeps readiness at 503", async () => {
  await withPeers([startUnboundPeer({ healthy: false })], async ([peer]) => {
    const edge = await startTestEdge({
      backends: [`127.0.0.1:${peer!.port}`],
    });
    try {
      // mustResolve: NXDOMAIN for health.kudurru.internal. is a failure.
      await eventually("dnsdist's first health check", async () => {
        const r = await probe(`${edge.probesUrl}/healthz/ready`);
        return r.body.includes("no backend is up") ? r : undefined;
      });
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const still = await probe(`${edge.probesUrl}/healthz/ready`);
      assert.equal(still.status, 503);
      assert.ok(peer!.clientsOf("health.kudurru.internal.").length >= 2);
    } finally {
      await edge.stop();
    }
  });
});

Deno.test("a dnsdist that dies is started again", async () => {
  await withPeers([startUnboundPeer()], async ([peer]) => {
    const logger = memoryLogger();
    const edge = await startTestEdge({
      backends: [`127.0.0.1:${peer!.port}`],
      logger,
    });
    try {
      const first = edge.supervisor.pid!;
      await eventually("an answer", () => answerOf(edge.dnsPort));
      Deno.kill(first, "SIGKILL");
      const second = await eventually("a new dnsdist", () => {
        const pid = edge.supervisor.pid;
        return pid !== undefined && pid !== first ? pid : undefined;
      });
      assert.equal(edge.supervisor.starts, 2);
      assert.ok(processGone(first));
      assert.ok(logger.lines.some((l) => l.includes("exited unexpectedly")));
      assert.equal(
        await eventually("an answer again", () => answerOf(edge.dnsPort)),
        "192.0.2.1",
      );
      assert.equal(edge.supervisor.pid, second);
    } finally {
      await edge.stop();
    }
  });
});

Deno.test("new backends restart dnsdist once, after the debounce; a configuration dnsdist refuses is not swapped in", async () => {
  await withPeers(
    [
      startUnboundPeer({ answer: "192.0.2.1" }),
      startUnboundPeer({
        answer: "192.0.2.2",
      }),
    ],
    async ([a, b]) => {
      const logger = memoryLogger();
      let refuse = false;
      const edge = await startTestEdge({
        backends: [`127.0.0.1:${a!.port}`],
        logger,
        restartDebounceMs: 700,
        render: (topology, credentials) =>
          refuse
            // Lua that loads, then fails: dnsdist --check-config exits 1.
            ? renderDnsdistLua(topology, credentials) +
              'error("refused on purpose")\n'
            : renderDnsdistLua(topology, credentials),
      });
      try {
        assert.equal(
          await eventually("A answering", () => answerOf(edge.dnsPort)),
          "192.0.2.1",
        );
        const firstPid = edge.supervisor.pid;
        // Two changes inside the debounce: one restart, with the last list.
        edge.supervisor.setBackends([
          `127.0.0.1:${a!.port}`,
          `127.0.0.1:${b!.port}`,
        ]);
        edge.supervisor.setBackends([`127.0.0.1:${b!.port}`]);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(edge.supervisor.starts, 1, "not before the debounce");
        assert.equal(edge.supervisor.pid, firstPid);
        await eventually(
          "the restart",
          () => edge.supervisor.starts === 2 ? true : undefined,
        );
        assert.equal(
          await eventually("B answering", () => answerOf(edge.dnsPort)),
          "192.0.2.2",
        );
        assert.deepEqual(
          edge.supervisor.topology.backends.map((x) => x.address.port),
          [b!.port],
        );
        const config = Deno.readTextFileSync(edge.supervisor.configPath);
        assert.ok(config.includes(`127.0.0.1:${b!.port}`));
        assert.ok(!config.includes(`127.0.0.1:${a!.port}`));
        // The same list again changes nothing.
        edge.supervisor.setBackends([`127.0.0.1:${b!.port}`]);

        refuse = true;
        const secondPid = edge.supervisor.pid;
        edge.supervisor.setBackends([`127.0.0.1:${a!.port}`]);
        await eventually(
          "the refusal logged",
          () =>
            logger.lines.some((l) => l.includes("refused on purpose"))
              ? true
              : undefined,
        );
        assert.equal(edge.supervisor.starts, 2);
        assert.equal(edge.supervisor.pid, secondPid);
        assert.equal(
          Deno.readTextFileSync(edge.supervisor.configPath),
          config,
          "the live file is the old one",
        );
        assert.equal(await answerOf(edge.dnsPort), "192.0.2.2");
        assert.deepEqual(
          [...Deno.readDirSync(edge.runDir)].map((e) => e.name),
          ["dnsdist.conf"],
          "no temporary file left behind",
        );
      } finally {
        await edge.stop();
      }
    },
  );
});

interface ApiRule {
  action: string;
  matches: number;
}

Deno.test("authoritative zones go to the authoritative pool, the rest to the resolver pool; every backend in both", async () => {
  await withPeers([startUnboundPeer()], async ([peer]) => {
    const edge = await startTestEdge({
      backends: [`127.0.0.1:${peer!.port}`],
      authoritativeZones: ["test."],
    });
    try {
      assert.equal(
        await eventually("an answer", () => answerOf(edge.dnsPort)),
        "192.0.2.1",
      );
      const txt = await query(edge.dnsPort, "health.kudurru.internal.", "TXT");
      assert.equal(txt.rcode, "NOERROR");
      const api = edge.supervisor.api()!;
      const response = await fetch(`${api.url}/api/v1/servers/localhost`, {
        headers: { "X-API-Key": api.apiKey },
      });
      const body = await response.json() as {
        rules: ApiRule[];
        servers: { name: string; pools: string[]; weight: number }[];
      };
      const matches = (pool: string) =>
        body.rules.find((r) => r.action.includes(`to pool ${pool}`))?.matches;
      assert.equal(matches("authoritative"), 1, JSON.stringify(body.rules));
      assert.equal(matches("resolver"), 1, JSON.stringify(body.rules));
      assert.deepEqual(
        body.servers.map((s) => [s.name, s.pools, s.weight]),
        [[
          edge.topology.backends[0]!.name,
          ["authoritative", "resolver"],
          1000,
        ]],
      );
    } finally {
      await edge.stop();
    }
  });
});
