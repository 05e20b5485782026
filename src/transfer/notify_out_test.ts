import assert from "node:assert/strict";
import { checkMessage, signMessage, type TsigKey } from "../dns/tsig/tsig.ts";
import { OPCODE, RCODE, TYPE } from "../dns/wire/constants.ts";
import { TSIG_ERROR, unsignedTsigError } from "../dns/wire/tsig_error.ts";
import { memoryLogger } from "../log/logger.ts";
import { hasIpv6Loopback } from "../testing/free_port.ts";
import {
  createNotifier,
  type NotifierOptions,
  type NotifyResult,
} from "./notify_out.ts";
import {
  type Received,
  replyTo,
  soaOf,
  startResponder,
  waitFor,
} from "./testdata/notify_responder.ts";

const ZONE = "example.test.";

/** Short timings: a silent target fails within a few hundred ms. */
const FAST: Partial<NotifierOptions> = {
  timeoutMs: 60,
  retries: 2,
  retryDelayMs: 20,
  maxRetryDelayMs: 40,
};

function setup(opts: Partial<NotifierOptions> = {}) {
  const logger = memoryLogger();
  const results: NotifyResult[] = [];
  const notifier = createNotifier({
    logger,
    ...FAST,
    onResult: (r) => results.push(r),
    ...opts,
  });
  return { logger, results, notifier };
}

const noerror = (r: Received) => [{ message: replyTo(r) }];

function keyOf(name = "notify-key."): TsigKey {
  return {
    name,
    algorithm: "hmac-sha256",
    secret: crypto.getRandomValues(new Uint8Array(32)),
  };
}

Deno.test("notify sends opcode NOTIFY, AA, the SOA question and the SOA; NOERROR acknowledges", async () => {
  const responder = startResponder(noerror);
  const { notifier, results } = setup();
  try {
    notifier.notify("Example.Test", soaOf(ZONE, 2024010101), [
      responder.target,
    ]);
    await waitFor(() => results.length === 1, "the result");
    assert.equal(responder.received.length, 1);
    const { info, decoded } = responder.received[0]!;
    assert.equal(info.opcode, OPCODE.NOTIFY);
    assert.equal(info.qr, false);
    assert.equal(decoded.opcode, "NOTIFY");
    assert.equal(decoded.flag_aa, true);
    assert.deepEqual(decoded.questions, [{
      name: "Example.Test",
      type: "SOA",
      class: "IN",
    }]);
    assert.equal(decoded.answers.length, 1);
    assert.equal(decoded.answers[0].type, "SOA");
    // The owner is compressed to the question name, in its case.
    assert.equal(decoded.answers[0].name.toLowerCase(), "example.test");
    assert.equal(decoded.answers[0].data.serial, 2024010101);
    assert.equal(info.arcount, 0, "unsigned: no TSIG");
    assert.deepEqual(results, [{
      zone: "Example.Test.",
      target: responder.target,
      serial: 2024010101,
      outcome: "acknowledged",
      attempts: 1,
    }]);
    const [status] = notifier.status("example.test.");
    assert.equal(status?.state, "acknowledged");
    assert.equal(status?.attempts, 1);
    assert.equal(status?.serial, 2024010101);
    assert.equal(status?.lastError, undefined);
    assert.equal(typeof status?.lastAt, "number");
  } finally {
    await notifier.stop();
    await responder.close();
  }
});

Deno.test("notify works over IPv6 loopback", {
  ignore: !hasIpv6Loopback(),
}, async () => {
  const responder = startResponder(noerror, "::1");
  const { notifier, results } = setup();
  try {
    notifier.notify(ZONE, soaOf(ZONE, 7), [{
      address: "::1",
      port: responder.target.port,
    }]);
    await waitFor(() => results.length === 1, "the result");
    assert.equal(results[0]?.outcome, "acknowledged");
  } finally {
    await notifier.stop();
    await responder.close();
  }
});

Deno.test("notify uses a fresh ID for every attempt", async () => {
  const responder = startResponder(() => []);
  const { notifier, results } = setup({ retries: 3 });
  try {
    notifier.notify(ZONE, soaOf(ZONE, 1), [responder.target]);
    await waitFor(() => results.length === 1, "the failure");
    const ids = new Set(responder.received.map((r) => r.info.id));
    // Four random 16-bit IDs collide with odds of about 1 in 10^4.
    assert.ok(ids.size >= 3, `IDs ${[...ids]}`);
  } finally {
    await notifier.stop();
    await responder.close();
  }
});

Deno.test("notify to a silent target retries with backoff, then fails", async () => {
  const responder = startResponder(() => []);
  const { notifier, results, logger } = setup();
  try {
    notifier.notify(ZONE, soaOf(ZONE, 5), [responder.target]);
    await waitFor(() => notifier.status()[0]?.attempts === 1, "the first send");
    assert.equal(notifier.status()[0]?.state, "sent");
    await waitFor(() => results.length === 1, "the failure");
    assert.equal(responder.received.length, 3, "first attempt and 2 retries");
    const gaps = responder.received.slice(1).map((r, i) =>
      r.at - responder.received[i]!.at
    );
    // timeout 60 ms + delay 20 ms, then 60 ms + 40 ms (doubled), jitter ≤ 10 %.
    assert.ok(gaps[0]! >= 75 && gaps[0]! < 400, `first gap ${gaps[0]}`);
    assert.ok(gaps[1]! >= 95 && gaps[1]! < 500, `second gap ${gaps[1]}`);
    assert.deepEqual(results, [{
      zone: ZONE,
      target: responder.target,
      serial: 5,
      outcome: "failed",
      attempts: 3,
      error: "timeout",
    }]);
    const status = notifier.status(ZONE)[0]!;
    assert.equal(status.state, "failed");
    assert.equal(status.lastError, "timeout");
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(responder.received.length, 3, "nothing after the last retry");
    const warnings = logger.lines.map((l) => JSON.parse(l))
      .filter((l) => l.level === "warn");
    // Once for the retries, once for giving up: not once per attempt.
    assert.equal(warnings.length, 2, logger.lines.join("\n"));
    assert.ok(warnings.every((w) => w.error === "timeout" && w.zone === ZONE));
  } finally {
    await notifier.stop();
    await responder.close();
  }
});

Deno.test("notify takes REFUSED as a failed attempt and retries it", async () => {
  const responder = startResponder((r) => [{
    message: replyTo(r, { rcode: RCODE.REFUSED }),
  }]);
  const { notifier, results } = setup();
  try {
    notifier.notify(ZONE, soaOf(ZONE, 9), [responder.target]);
    await waitFor(() => results.length === 1, "the failure");
    assert.equal(responder.received.length, 3);
    assert.equal(results[0]?.outcome, "failed");
    assert.equal(results[0]?.error, "REFUSED");
    assert.equal(notifier.status()[0]?.lastError, "REFUSED");
  } finally {
    await notifier.stop();
    await responder.close();
  }
});

Deno.test("notify takes NOTIMP as final: failed at once, no retry (RFC 1996 §3.12)", async () => {
  const responder = startResponder((r) => [{
    message: replyTo(r, { rcode: RCODE.NOTIMP }),
  }]);
  const { notifier, results } = setup({ retries: 3 });
  try {
    notifier.notify(ZONE, soaOf(ZONE, 9), [responder.target]);
    await waitFor(() => results.length === 1, "the failure");
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(responder.received.length, 1);
    assert.deepEqual(
      [results[0]?.outcome, results[0]?.error, results[0]?.attempts],
      ["failed", "NOTIMP", 1],
    );
  } finally {
    await notifier.stop();
    await responder.close();
  }
});

Deno.test("notify is acknowledged by a later attempt after NOTAUTH", async () => {
  const responder = startResponder((r, index) => [{
    message: replyTo(r, { rcode: index === 0 ? RCODE.NOTAUTH : RCODE.NOERROR }),
  }]);
  const { notifier, results } = setup();
  try {
    notifier.notify(ZONE, soaOf(ZONE, 9), [responder.target]);
    await waitFor(() => results.length === 1, "the result");
    assert.equal(results[0]?.outcome, "acknowledged");
    assert.equal(results[0]?.attempts, 2);
    assert.equal(notifier.status()[0]?.lastError, undefined);
  } finally {
    await notifier.stop();
    await responder.close();
  }
});

Deno.test("notify ignores replies with another ID, opcode, question or QR=0, and waits for its own", async () => {
  const responder = startResponder((r) => [
    { message: replyTo(r, { id: (r.info.id + 1) & 0xffff }) },
    { message: replyTo(r, { opcode: OPCODE.QUERY }) },
    {
      message: replyTo(r, {
        question: { name: "other.test.", type: TYPE.SOA, class: 1 },
      }),
    },
    {
      message: replyTo(r, { question: { name: ZONE, type: TYPE.A, class: 1 } }),
    },
    { message: r.message }, // our own request echoed: QR=0
    { message: new Uint8Array([1, 2, 3]) },
    { message: replyTo(r), delayMs: 20 },
  ]);
  const { notifier, results } = setup({ timeoutMs: 500 });
  try {
    notifier.notify(ZONE, soaOf(ZONE, 3), [responder.target]);
    await waitFor(() => results.length === 1, "the result");
    assert.equal(results[0]?.outcome, "acknowledged");
    assert.equal(responder.received.length, 1, "no retry");
  } finally {
    await notifier.stop();
    await responder.close();
  }
});

Deno.test("notify takes a question-less error reply as a failed attempt", async () => {
  const responder = startResponder((r) => [{
    message: replyTo(r, { rcode: RCODE.FORMERR, question: null }),
  }]);
  const { notifier, results } = setup({ retries: 0, timeoutMs: 2000 });
  try {
    notifier.notify(ZONE, soaOf(ZONE, 3), [responder.target]);
    await waitFor(() => results.length === 1, "the result", 1000);
    assert.equal(results[0]?.error, "FORMERR");
  } finally {
    await notifier.stop();
    await responder.close();
  }
});

Deno.test("notify coalesces: a newer serial waits for the attempt out, then goes, and is the one acknowledged", async () => {
  const responder = startResponder((r) => [
    { message: replyTo(r), delayMs: 100 },
  ]);
  const { notifier, results } = setup({ timeoutMs: 400 });
  try {
    notifier.notify(ZONE, soaOf(ZONE, 10), [responder.target]);
    notifier.notify(ZONE, soaOf(ZONE, 10), [responder.target]); // no-op
    await waitFor(() => responder.received.length === 1, "the first send");
    notifier.notify(ZONE, soaOf(ZONE, 11), [responder.target]);
    notifier.notify(ZONE, soaOf(ZONE, 11), [responder.target]); // no-op
    const waiting = notifier.status()[0]!;
    assert.deepEqual([waiting.serial, waiting.state, waiting.attempts], [
      11,
      "pending",
      0,
    ]);
    await waitFor(() => results.length === 1, "the result");
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.deepEqual(
      results.map((r) => [r.serial, r.outcome]),
      [[11, "acknowledged"]],
    );
    const serials = responder.received.map((r) =>
      r.decoded.answers[0].data.serial
    );
    assert.deepEqual(serials, [10, 11]);
    assert.equal(notifier.status()[0]?.serial, 11);
    assert.equal(notifier.status()[0]?.attempts, 1);
  } finally {
    await notifier.stop();
    await responder.close();
  }
});

Deno.test("notify coalesces: a newer serial replaces one waiting to retry, which is not retried", async () => {
  const responder = startResponder((r) =>
    r.decoded.answers[0].data.serial === 20 ? [] : [{ message: replyTo(r) }]
  );
  const { notifier, results } = setup({
    timeoutMs: 40,
    retries: 5,
    retryDelayMs: 200,
  });
  try {
    notifier.notify(ZONE, soaOf(ZONE, 20), [responder.target]);
    await waitFor(
      () =>
        notifier.status()[0]?.state === "pending" &&
        notifier.status()[0]?.attempts === 1,
      "the wait before the retry",
    );
    notifier.notify(ZONE, soaOf(ZONE, 21), [responder.target]);
    await waitFor(() => results.length === 1, "the result");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const serials = responder.received.map((r) =>
      r.decoded.answers[0].data.serial
    );
    assert.deepEqual(serials, [20, 21]);
    assert.deepEqual(results.map((r) => [r.serial, r.outcome]), [
      [21, "acknowledged"],
    ]);
  } finally {
    await notifier.stop();
    await responder.close();
  }
});

Deno.test("notify with many serials to a slow target sends a bounded number", async () => {
  const responder = startResponder((r) => [
    { message: replyTo(r), delayMs: 80 },
  ]);
  const { notifier, results } = setup({ timeoutMs: 400 });
  try {
    for (let serial = 1; serial <= 50; serial++) {
      notifier.notify(ZONE, soaOf(ZONE, serial), [responder.target]);
    }
    await waitFor(() => results.length === 1, "the result");
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(responder.received.length <= 2, `${responder.received.length}`);
    assert.deepEqual(results.map((r) => r.serial), [50]);
  } finally {
    await notifier.stop();
    await responder.close();
  }
});

Deno.test("notify the same serial again after an acknowledgment sends nothing; after a failure, tries again", async () => {
  let answer = true;
  const responder = startResponder((r) =>
    answer ? [{ message: replyTo(r) }] : []
  );
  const { notifier, results } = setup({ retries: 0 });
  try {
    notifier.notify(ZONE, soaOf(ZONE, 4), [responder.target]);
    await waitFor(() => results.length === 1, "the acknowledgment");
    notifier.notify(ZONE, soaOf(ZONE, 4), [responder.target]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(responder.received.length, 1);
    answer = false;
    notifier.notify(ZONE, soaOf(ZONE, 5), [responder.target]);
    await waitFor(() => results.length === 2, "the failure");
    answer = true;
    notifier.notify(ZONE, soaOf(ZONE, 5), [responder.target]);
    await waitFor(() => results.length === 3, "the second try");
    assert.deepEqual(results.map((r) => [r.serial, r.outcome]), [
      [4, "acknowledged"],
      [5, "failed"],
      [5, "acknowledged"],
    ]);
  } finally {
    await notifier.stop();
    await responder.close();
  }
});

Deno.test("notify keeps at most maxInFlight NOTIFYs outstanding, the rest queued in order", async () => {
  const responder = startResponder((r) => [
    { message: replyTo(r), delayMs: 60 },
  ]);
  const { notifier, results } = setup({ maxInFlight: 2, timeoutMs: 1000 });
  try {
    const zones = Array.from({ length: 7 }, (_, i) => `z${i}.test.`);
    for (const zone of zones) {
      notifier.notify(zone, soaOf(zone, 1), [responder.target]);
    }
    const states = notifier.status().map((s) => s.state);
    assert.equal(states.filter((s) => s === "sent").length, 2);
    assert.equal(states.filter((s) => s === "pending").length, 5);
    await waitFor(() => results.length === 7, "every result", 3000);
    assert.equal(responder.maxOutstanding, 2);
    assert.deepEqual(
      responder.received.map((r) => r.info.question?.name),
      zones,
    );
    assert.ok(results.every((r) => r.outcome === "acknowledged"));
  } finally {
    await notifier.stop();
    await responder.close();
  }
});

Deno.test("notify to several targets of a zone: each its own outcome", async () => {
  const good = startResponder(noerror);
  const refusing = startResponder((r) => [
    { message: replyTo(r, { rcode: RCODE.REFUSED }) },
  ]);
  const { notifier, results } = setup({ retries: 0 });
  try {
    notifier.notify(ZONE, soaOf(ZONE, 1), [good.target, refusing.target]);
    await waitFor(() => results.length === 2, "both results");
    const byPort = new Map(results.map((r) => [r.target.port, r]));
    assert.equal(byPort.get(good.target.port)?.outcome, "acknowledged");
    assert.equal(byPort.get(refusing.target.port)?.error, "REFUSED");
    assert.equal(notifier.status(ZONE).length, 2);
    assert.equal(notifier.status("other.test.").length, 0);
  } finally {
    await notifier.stop();
    await good.close();
    await refusing.close();
  }
});

Deno.test("notify forgets targets left out of the zone's latest call", async () => {
  const silent = startResponder(() => []);
  const good = startResponder(noerror);
  const { notifier, results } = setup({ retries: 5, retryDelayMs: 30 });
  try {
    notifier.notify(ZONE, soaOf(ZONE, 1), [silent.target]);
    await waitFor(() => silent.received.length === 1, "the first send");
    notifier.notify(ZONE, soaOf(ZONE, 2), [good.target]);
    await waitFor(() => results.length === 1, "the result");
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(silent.received.length, 1, "no retry to the dropped target");
    assert.deepEqual(notifier.status().map((s) => s.target), [good.target]);
    notifier.notify(ZONE, soaOf(ZONE, 2), []);
    assert.deepEqual(notifier.status(), []);
  } finally {
    await notifier.stop();
    await silent.close();
    await good.close();
  }
});

Deno.test("notify signs with TSIG and accepts the reply signed over its MAC", async () => {
  const key = keyOf();
  const checks: string[] = [];
  const responder = startResponder(async (r) => {
    const check = await checkMessage(
      r.message,
      (name) => name === key.name ? key : undefined,
      { now: Date.now() / 1000 },
    );
    checks.push(check.status);
    if (check.status !== "ok") return [];
    const signed = await signMessage(replyTo(r), key, {
      now: Date.now() / 1000,
      requestMac: check.mac,
    });
    return [{ message: signed.message }];
  });
  const { notifier, results } = setup();
  try {
    notifier.notify(ZONE, soaOf(ZONE, 77), [responder.target], key);
    await waitFor(() => results.length === 1, "the result");
    assert.deepEqual(checks, ["ok"]);
    assert.equal(results[0]?.outcome, "acknowledged");
    const { decoded, info } = responder.received[0]!;
    assert.equal(info.tsig !== undefined, true);
    assert.equal(decoded.answers[0].data.serial, 77, "the SOA still there");
  } finally {
    await notifier.stop();
    await responder.close();
  }
});

Deno.test("notify signed with TSIG rejects a reply signed with another secret, or unsigned", async (t) => {
  const key = keyOf();
  const impostor = { ...keyOf(), name: key.name };
  const cases: [
    string,
    (r: Received, mac: Uint8Array) => Promise<Uint8Array>,
    string,
  ][] = [
    [
      "wrong secret",
      async (r, mac) =>
        (await signMessage(replyTo(r), impostor, {
          now: Date.now() / 1000,
          requestMac: mac,
        })).message,
      "BADSIG",
    ],
    [
      "another key name",
      async (r, mac) =>
        (await signMessage(replyTo(r), keyOf("other-key."), {
          now: Date.now() / 1000,
          requestMac: mac,
        })).message,
      "BADKEY",
    ],
    [
      "right key, not over our MAC",
      async (r) =>
        (await signMessage(replyTo(r), key, { now: Date.now() / 1000 }))
          .message,
      "BADSIG",
    ],
    ["unsigned", (r) => Promise.resolve(replyTo(r)), "reply not signed"],
  ];
  for (const [name, reply, error] of cases) {
    await t.step(name, async () => {
      const responder = startResponder(async (r) => {
        const check = await checkMessage(
          r.message,
          (n) => n === key.name ? key : undefined,
          { now: Date.now() / 1000 },
        );
        assert.equal(check.status, "ok");
        return [{
          message: await reply(r, (check as { mac: Uint8Array }).mac),
        }];
      });
      const { notifier, results } = setup({ retries: 1 });
      try {
        notifier.notify(ZONE, soaOf(ZONE, 1), [responder.target], key);
        await waitFor(() => results.length === 1, "the result");
        assert.equal(results[0]?.outcome, "failed");
        assert.equal(results[0]?.error, error);
        assert.equal(responder.received.length, 2, "retried");
      } finally {
        await notifier.stop();
        await responder.close();
      }
    });
  }
});

Deno.test("notify names the TSIG error of a NOTAUTH reply", async () => {
  const key = keyOf();
  // RFC 8945 §5.3.2: an unsigned error TSIG, as a secondary without the key sends.
  const responder = startResponder((r) => {
    const tsig = r.info.tsig!;
    const record = unsignedTsigError(r.message, tsig, TSIG_ERROR.BADKEY);
    const plain = replyTo(r, { rcode: RCODE.NOTAUTH });
    const message = new Uint8Array(plain.length + record.length);
    message.set(plain);
    message.set(record, plain.length);
    message[11] = 1; // ARCOUNT
    return [{ message }];
  });
  const { notifier, results } = setup({ retries: 0 });
  try {
    notifier.notify(ZONE, soaOf(ZONE, 1), [responder.target], key);
    await waitFor(() => results.length === 1, "the result");
    assert.equal(results[0]?.error, "NOTAUTH (BADKEY)");
  } finally {
    await notifier.stop();
    await responder.close();
  }
});

Deno.test("notify never throws: bad SOA, bad target, bad zone name are logged and reported", async () => {
  const { notifier, results, logger } = setup();
  try {
    const notA = { ...soaOf(ZONE, 1), type: TYPE.A };
    notifier.notify(ZONE, notA, [{ address: "127.0.0.1", port: 53 }]);
    notifier.notify(ZONE, notA, [{ address: "127.0.0.1", port: 53 }]);
    notifier.notify(ZONE, { ...soaOf(ZONE, 1), rdata: [] }, []);
    notifier.notify("bad..name.", soaOf(ZONE, 1), [{
      address: "127.0.0.1",
      port: 53,
    }]);
    assert.deepEqual(notifier.status(), []);
    const errors = logger.lines.map((l) => JSON.parse(l)).filter((l) =>
      l.level === "error"
    );
    assert.equal(errors.length, 3, "each problem once");
    notifier.notify(ZONE, soaOf(ZONE, 1), [
      { address: "ns1.example.test", port: 53 },
      { address: "127.0.0.1", port: 0 },
    ]);
    assert.deepEqual(
      results.map((r) => [r.outcome, r.error]),
      [
        ["failed", '"ns1.example.test" is not an IP address'],
        ["failed", "port 0 is not 1-65535"],
      ],
    );
    assert.deepEqual(
      notifier.status().map((s) => [s.state, s.attempts]),
      [["failed", 0], ["failed", 0]],
    );
  } finally {
    await notifier.stop();
  }
});

Deno.test("notify survives an onResult that throws", async () => {
  const responder = startResponder(noerror);
  const { notifier, logger } = setup({
    onResult: () => {
      throw new Error("metrics broke");
    },
  });
  try {
    notifier.notify(ZONE, soaOf(ZONE, 1), [responder.target]);
    await waitFor(
      () => notifier.status()[0]?.state === "acknowledged",
      "the acknowledgment",
    );
    assert.ok(logger.lines.some((l) => l.includes("metrics broke")));
  } finally {
    await notifier.stop();
    await responder.close();
  }
});

Deno.test("notify stop() closes sockets and timers of attempts in flight and waiting", async () => {
  const silent = startResponder(() => []);
  const { notifier, results } = setup({
    timeoutMs: 5000,
    retryDelayMs: 5000,
    maxInFlight: 1,
  });
  try {
    notifier.notify("a.test.", soaOf("a.test.", 1), [silent.target]);
    notifier.notify("b.test.", soaOf("b.test.", 1), [silent.target]);
    await waitFor(() => silent.received.length === 1, "the first send");
    const started = performance.now();
    await notifier.stop();
    assert.ok(
      performance.now() - started < 1000,
      "stop does not wait for timeouts",
    );
    notifier.notify("c.test.", soaOf("c.test.", 1), [silent.target]);
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(silent.received.length, 1);
    assert.deepEqual(results, []);
  } finally {
    await silent.close();
  }
});

Deno.test("notify stop() during a wait between retries clears the timer", async () => {
  const silent = startResponder(() => []);
  const { notifier } = setup({ timeoutMs: 20, retryDelayMs: 5000 });
  try {
    notifier.notify(ZONE, soaOf(ZONE, 1), [silent.target]);
    await waitFor(
      () =>
        notifier.status()[0]?.state === "pending" &&
        notifier.status()[0]?.attempts === 1,
      "the wait before the retry",
    );
  } finally {
    await notifier.stop();
    await silent.close();
  }
});
