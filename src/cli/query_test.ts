/**
 * `kudurru query` without a kudurru: usage errors, a server that never
 * answers (exit 1 naming it, within the timeout), and the reading of
 * kudurru's Extended DNS Errors.
 */
import assert from "node:assert/strict";
import { encodeResponse } from "../dns/wire/response.ts";
import { extendedError } from "../dns/wire/extended_error.ts";
import { EDNS_OPTION } from "../dns/wire/constants.ts";
import { bufferIO, UsageError } from "./command.ts";
import { queryCommand } from "./query.ts";
import { decodeAnswer, explain } from "./query_answer.ts";
import { statusLine } from "./query_output.ts";

Deno.test("kudurru query: usage errors name the problem", async (t) => {
  const cases: [string[], RegExp][] = [
    [[], /name the domain/],
    [["example.com", "NOPE"], /"NOPE" is not a record type/],
    [["a..b"], /kudurru query: /],
    [["example.com", "--tcp", "--tls"], /--tcp and --tls conflict/],
    [
      ["example.com", "--client-id", "phone"],
      /--client-id needs --tls or --https/,
    ],
    [
      [
        "example.com",
        "--https",
        "--client-id",
        "Not An Id",
        "--server",
        "127.0.0.1",
      ],
      /is not a client ID/,
    ],
    [["example.com", "--ca-file", "x"], /need --tls or --https/],
    [["example.com", "-o", "yaml"], /-o must be text or json/],
    [["example.com", "--timeout", "soon"], /--timeout "soon"/],
    [["example.com", "--bogus"], /bogus/],
    [["example.com", "A", "extra"], /unexpected argument "extra"/],
    [
      ["example.com", "--tcp", "--server", "tls://127.0.0.1"],
      /conflicts with --tcp/,
    ],
    [
      [
        "example.com",
        "--tls",
        "--server",
        "127.0.0.1",
        "--ca-file",
        "/nonexistent/ca.crt",
      ],
      /cannot read --ca-file/,
    ],
    [["example.com", "--client", "kids-tablet"], /takes an IP address/],
    [
      ["example.com", "--client", "192.0.2.7", "--tcp", "--server", "::1"],
      /sends no query: leave out --server, --tcp/,
    ],
    [["example.com", "--context", "lab"], /--context goes with --client/],
  ];
  for (const [args, message] of cases) {
    await t.step(args.join(" ") || "(nothing)", async () => {
      await assert.rejects(
        queryCommand.run(args, bufferIO().io),
        (err: unknown) =>
          err instanceof UsageError && message.test(err.message),
      );
    });
  }
});

Deno.test("kudurru query: a server that never answers is exit 1 within the timeout, naming server and transport", async () => {
  // Bound, so no ICMP port-unreachable ends the wait early; never read.
  const silent = Deno.listenDatagram({
    transport: "udp",
    hostname: "127.0.0.1",
    port: 0,
  });
  try {
    const { port } = silent.addr as Deno.NetAddr;
    const b = bufferIO();
    const started = performance.now();
    const code = await queryCommand.run(
      ["example.com", "--server", `127.0.0.1:${port}`, "--timeout", "300ms"],
      b.io,
    );
    const elapsed = performance.now() - started;
    assert.equal(code, 1);
    assert.equal(b.stdout(), "");
    assert.equal(
      b.stderr(),
      `kudurru query: no answer from 127.0.0.1#${port} over udp within 300 ms\n`,
    );
    assert.ok(elapsed >= 250 && elapsed < 2000, `took ${elapsed} ms`);
  } finally {
    silent.close();
  }
});

Deno.test("kudurru query: a refused TCP connection is exit 1 with the reason", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close(); // nothing listens there now
  const b = bufferIO();
  const code = await queryCommand.run(
    [
      "example.com",
      "--tcp",
      "--server",
      `127.0.0.1:${port}`,
      "--timeout",
      "2s",
    ],
    b.io,
  );
  assert.equal(code, 1);
  assert.match(
    b.stderr(),
    new RegExp(`cannot ask 127\\.0\\.0\\.1#${port} over tcp: `),
  );
});

function answerWith(ede?: [number, string]): Uint8Array {
  return encodeResponse({
    id: 7,
    opcode: 0,
    rcode: 3,
    rd: true,
    cd: false,
    question: { name: "ads.example.", type: 1, class: 1 },
    edns: {
      udpSize: 1232,
      dnssecOk: false,
      options: ede === undefined
        ? []
        : [{ code: EDNS_OPTION.EDE, data: extendedError(...ede) }],
    },
  }, 65535);
}

Deno.test("kudurru query reads kudurru's EDE texts as block reasons, others as they came", () => {
  const blocked = decodeAnswer(answerWith([15, "blocked by kids-ads"]));
  assert.equal(blocked.rcode, "NXDOMAIN");
  assert.deepEqual(blocked.question, [
    { name: "ads.example.", class: "IN", type: "A" },
  ]);
  assert.equal(
    statusLine(explain(blocked)),
    "Status: blocked (list kids-ads)",
  );
  assert.equal(
    statusLine(explain(decodeAnswer(
      answerWith([17, "not on an allow list of allow-only policy kids"]),
    ))),
    "Status: filtered (not on an allow list of allow-only policy kids)",
  );
  assert.equal(
    statusLine(explain(decodeAnswer(answerWith([22, "no upstream answered"])))),
    "Status: No Reachable Authority (EDE 22): no upstream answered",
  );
  // A Blocked EDE in words that are not kudurru's: shown as it came.
  assert.equal(
    statusLine(explain(decodeAnswer(answerWith([15, "policy"])))),
    "Status: Blocked (EDE 15): policy",
  );
  assert.equal(
    statusLine(explain(decodeAnswer(answerWith()))),
    "Status: answered (NXDOMAIN)",
  );
});

Deno.test("kudurru query --client without a context says to log in", async () => {
  const home = await Deno.makeTempDir({ prefix: "kudurru-query-client-" });
  try {
    await assert.rejects(
      queryCommand.run(
        ["example.com", "--client", "192.0.2.7"],
        bufferIO("", { XDG_CONFIG_HOME: home }).io,
      ),
      /--client asks a server's API .*: run kudurru login --server URL first/,
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
