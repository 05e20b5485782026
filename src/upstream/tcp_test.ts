import assert from "node:assert/strict";
import { RCODE, TYPE } from "../dns/wire/constants.ts";
import { parseQuery } from "../dns/wire/query.ts";
import { readAddressRecords } from "./address_records.ts";
import { buildQuery } from "./build_query.ts";
import { parseUpstreamServer } from "../config/upstream_server.ts";
import { QueryTimeoutError, STALL_MS } from "./pipelined_connection.ts";
import { createTcpTransport, type PooledTransport } from "./tcp.ts";
import {
  answer,
  errorWithoutQuestion,
  question,
  type Script,
  type ScriptedServer,
  startTcpUpstream,
  urlOf,
} from "./testdata/scripted_upstream.ts";

/** Answers "<n>.example." with 192.0.2.<n>, after n*10 ms for n below 5. */
const NUMBERED: Script = (q) => {
  const n = Number(q.question!.name.split(".")[0]);
  return [{
    message: answer(q, { a: [`192.0.2.${n}`] }),
    delayMs: n < 5 ? n * 10 : 0,
  }];
};

async function withTcp(
  opts: { closeAfterAnswer?: boolean; idleMs?: number; script?: Script },
  body: (t: PooledTransport, server: ScriptedServer) => Promise<void>,
): Promise<void> {
  const server = startTcpUpstream(opts.script ?? NUMBERED, opts);
  const transport = createTcpTransport(
    parseUpstreamServer(urlOf("tcp", server)),
    {
      address: server.hostname,
      ...(opts.idleMs === undefined ? {} : { idleMs: opts.idleMs }),
    },
  );
  try {
    await body(transport, server);
  } finally {
    await transport.closeAndWait();
    await server.close();
  }
}

/** Asks "<n>.example." with ID `id`; the address answered. */
async function ask(t: PooledTransport, n: number, id: number) {
  const reply = await t.exchange(
    buildQuery(question(`${n}.example.`), id),
    AbortSignal.any([]),
  );
  assert.equal(parseQuery(reply).id, id);
  return readAddressRecords(reply, TYPE.A).addresses[0];
}

Deno.test("tcp transport pipelines concurrent queries on one connection", async () => {
  await withTcp({}, async (transport, server) => {
    // The first answer is sent later than the second: out of order on the wire.
    const answers = await Promise.all([
      ask(transport, 4, 100),
      ask(transport, 1, 100),
    ]);
    assert.deepEqual(answers, ["192.0.2.4", "192.0.2.1"]);
    assert.equal(server.connections, 1);
    const wireIds = server.seen.map((s) => s.query.id);
    assert.notEqual(wireIds[0], wireIds[1]);
  });
});

Deno.test("tcp transport reuses its connection for later queries", async () => {
  await withTcp({}, async (transport, server) => {
    assert.equal(await ask(transport, 7, 1), "192.0.2.7");
    assert.equal(await ask(transport, 8, 2), "192.0.2.8");
    assert.equal(server.connections, 1);
  });
});

Deno.test("tcp transport reconnects after the server closes", async () => {
  await withTcp({}, async (transport, server) => {
    assert.equal(await ask(transport, 7, 1), "192.0.2.7");
    server.dropConnections();
    assert.equal(await ask(transport, 8, 2), "192.0.2.8");
    assert.equal(server.connections, 2);
  });
});

Deno.test("tcp transport reconnects to a server that closes after each answer", async () => {
  await withTcp({ closeAfterAnswer: true }, async (transport, server) => {
    for (let n = 6; n < 9; n++) {
      assert.equal(await ask(transport, n, n), `192.0.2.${n}`);
    }
    assert.equal(server.connections, 3);
  });
});

Deno.test("tcp transport asks again, once, what a new connection closed before answering", async () => {
  await withTcp({ closeAfterAnswer: true }, async (transport, server) => {
    // Three queries pipelined on the first connection: one is answered
    // before the close, the other two are asked again on the next one,
    // where one more is answered.
    const results = await Promise.allSettled(
      [1, 2, 3].map((n) => ask(transport, n, n)),
    );
    const answered = results.filter((r) => r.status === "fulfilled").length;
    assert.equal(answered, 2);
    assert.equal(server.connections, 2);
  });
});

Deno.test("tcp transport closes an idle connection", async () => {
  await withTcp({ idleMs: 30 }, async (transport, server) => {
    assert.equal(await ask(transport, 7, 1), "192.0.2.7");
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.equal(await ask(transport, 8, 2), "192.0.2.8");
    assert.equal(server.connections, 2);
  });
});

Deno.test("tcp transport refuses queries beyond its in-flight bound", async () => {
  const server = startTcpUpstream(() => []);
  const transport = createTcpTransport(
    parseUpstreamServer(urlOf("tcp", server)),
    { address: server.hostname, maxInFlight: 1 },
  );
  const stop = new AbortController();
  try {
    const first = transport.exchange(
      buildQuery(question("1.example."), 1),
      stop.signal,
    );
    await assert.rejects(
      transport.exchange(buildQuery(question("2.example."), 2), stop.signal),
      /1 queries already in flight/,
    );
    stop.abort(new Error("done"));
    await assert.rejects(first, /done/);
  } finally {
    await transport.closeAndWait();
    await server.close();
  }
});

/** Asks "<n>.example." with ID `n` and aborts it after `afterMs` with `reason`. */
async function askAndAbort(
  t: PooledTransport,
  n: number,
  reason: Error,
  afterMs = 50,
) {
  const control = new AbortController();
  const timer = setTimeout(() => control.abort(reason), afterMs);
  try {
    await assert.rejects(
      t.exchange(buildQuery(question(`${n}.example.`), n), control.signal),
      (error: unknown) => error === reason,
    );
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("tcp transport replaces a connection that answered nothing for STALL_MS, whoever gave the query up", async (t) => {
  const reasons = [
    new QueryTimeoutError("stopped: timeout"),
    new Error("stopped: answered"), // another server first
  ];
  for (const reason of reasons) {
    await t.step(reason.message, async () => {
      // Answers the first query of each connection only, then goes silent.
      let answeredOn = 0;
      let connections = () => 0;
      const script: Script = (q) => {
        if (connections() === answeredOn) return [];
        answeredOn = connections();
        return [{ message: answer(q, { a: ["192.0.2.1"] }) }];
      };
      await withTcp({ script }, async (transport, server) => {
        connections = () => server.connections;
        assert.equal(await ask(transport, 1, 1), "192.0.2.1");
        // Given up just after it was sent (a late hedge): proves nothing.
        await askAndAbort(transport, 2, reason);
        assert.equal(server.connections, 1);
        // Given up after STALL_MS of silence: the connection is dead.
        await askAndAbort(transport, 4, reason, STALL_MS + 50);
        assert.equal(await ask(transport, 3, 3), "192.0.2.1");
        assert.equal(server.connections, 2);
      });
    });
  }
});

Deno.test("tcp transport fails only the query whose answer does not fit, on the same connection", async () => {
  // 2.example. gets an answer about another name at once; the others come
  // later on the same connection.
  const script: Script = (q) =>
    q.question!.name.startsWith("2.")
      ? [{ message: answer(q, { a: ["192.0.2.2"], name: "other.example." }) }]
      : [{ message: answer(q, { a: ["192.0.2.1"] }), delayMs: 50 }];
  await withTcp({ script }, async (transport, server) => {
    const [first, second, third] = await Promise.allSettled([
      ask(transport, 1, 1),
      ask(transport, 2, 2),
      ask(transport, 3, 3),
    ]);
    assert.deepEqual(first, { status: "fulfilled", value: "192.0.2.1" });
    assert.equal(second.status, "rejected");
    assert.match(
      String((second as PromiseRejectedResult).reason),
      /does not fit \(question differs/,
    );
    assert.deepEqual(third, { status: "fulfilled", value: "192.0.2.1" });
    assert.equal(server.seen.length, 3, "nothing asked again");
    assert.equal(await ask(transport, 4, 4), "192.0.2.1");
    assert.equal(server.connections, 1);
  });
});

Deno.test("tcp transport takes an error answer without a question as its query's answer", async () => {
  const script: Script = (q) =>
    q.question!.name.startsWith("2.")
      ? [{ message: errorWithoutQuestion(q, RCODE.REFUSED) }]
      : [{ message: answer(q, { a: ["192.0.2.1"] }), delayMs: 50 }];
  await withTcp({ script }, async (transport, server) => {
    const others = [ask(transport, 1, 1), ask(transport, 3, 3)];
    const refused = await transport.exchange(
      buildQuery(question("2.example."), 2),
      AbortSignal.any([]),
    );
    const info = parseQuery(refused);
    assert.equal(info.id, 2);
    assert.equal(info.flags & 0xf, RCODE.REFUSED);
    assert.deepEqual(await Promise.all(others), ["192.0.2.1", "192.0.2.1"]);
    assert.equal(server.connections, 1);
  });
});

Deno.test("tcp transport keeps its connection when a query is given up for another reason", async () => {
  // Never answers 2.example.; answers everything else.
  const script: Script = (q) =>
    q.question!.name.startsWith("2.")
      ? []
      : [{ message: answer(q, { a: ["192.0.2.1"] }) }];
  await withTcp({ script }, async (transport, server) => {
    assert.equal(await ask(transport, 1, 1), "192.0.2.1");
    // Another server answered first (parallel_best): this one is just slower.
    await askAndAbort(transport, 2, new Error("stopped: answered"));
    assert.equal(await ask(transport, 3, 3), "192.0.2.1");
    assert.equal(server.connections, 1);
  });
});
