import assert from "node:assert/strict";
import {
  checkMessage,
  signMessage,
  TSIG_ALGORITHMS,
  TSIG_ERROR,
  type TsigAlgorithm,
  type TsigKey,
} from "./tsig.ts";
import { WireFormatError } from "../wire/wire_format_error.ts";

const now = () => Date.now() / 1000;
const keyOf = (algorithm: TsigAlgorithm = "hmac-sha256"): TsigKey => ({
  name: "transfer.example.",
  algorithm,
  secret: crypto.getRandomValues(new Uint8Array(32)),
});
const only = (key: TsigKey) => (name: string) =>
  name === key.name ? key : undefined;
const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

/** The header and question of `request`, as a reply with no records. */
function replyTo(request: Uint8Array): Uint8Array {
  let at = 12;
  while (request[at] !== 0) at += request[at]! + 1;
  const reply = request.slice(0, at + 5);
  reply[2] = 0x85; // QR, AA, RD
  reply[3] = 0x80; // RA, NOERROR
  reply.fill(0, 6, 12); // no answer, authority or additional records
  return reply;
}

/**
 * dig (BIND 9) asks a one-shot UDP "server" here with `key`; the server
 * checks dig's TSIG and answers signed with `answerWith`. Resolves to the
 * check of the query and dig's output.
 */
async function withDig(key: TsigKey, answerWith: TsigKey) {
  using socket = listen();
  const port = (socket.addr as Deno.NetAddr).port;
  const dig = new Deno.Command("dig", {
    args: [
      "@127.0.0.1",
      "-p",
      String(port),
      "www.example.test",
      "A",
      "+tries=1",
      "+time=3",
      "-y",
      `${key.algorithm}:transfer.example:${base64(key.secret)}`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const [request, from] = await socket.receive();
  const check = await checkMessage(request, only(answerWith), { now: now() });
  if (check.status === "ok") {
    const signed = await signMessage(replyTo(request), answerWith, {
      now: now(),
      requestMac: check.mac,
    });
    await socket.send(signed.message, from);
  }
  const out = await dig;
  return {
    check,
    text: new TextDecoder().decode(out.stdout) +
      new TextDecoder().decode(out.stderr),
  };
}

Deno.test("tsig: dig's signed queries check, and dig verifies the signed answers, with every algorithm", async () => {
  for (const algorithm of Object.keys(TSIG_ALGORITHMS) as TsigAlgorithm[]) {
    const key = keyOf(algorithm);
    const { check, text } = await withDig(key, key);
    assert.equal(check.status, "ok", `${algorithm}: ${JSON.stringify(check)}`);
    assert.match(text, /status: NOERROR/, algorithm);
    assert.match(text, /TSIG PSEUDOSECTION/, algorithm);
    assert.doesNotMatch(text, /Couldn't verify|could not be validated/, text);
  }
});

Deno.test("tsig: dig refuses an answer signed with another secret; a wrong secret is BADSIG here", async () => {
  const key = keyOf();
  const other = { ...key, secret: crypto.getRandomValues(new Uint8Array(32)) };
  const { check } = await withDig(key, other);
  assert.equal(check.status, "error");
  assert.equal(check.status === "error" && check.error, TSIG_ERROR.BADSIG);

  // dig's side: our answer under the wrong secret does not verify there.
  using socket = listen();
  const dig = new Deno.Command("dig", {
    args: [
      "@127.0.0.1",
      "-p",
      String((socket.addr as Deno.NetAddr).port),
      "www.example.test",
      "A",
      "+tries=1",
      "+time=3",
      "-y",
      `hmac-sha256:transfer.example:${base64(key.secret)}`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const [request, from] = await socket.receive();
  const checked = await checkMessage(request, only(key), { now: now() });
  assert.ok(checked.status === "ok");
  const forged = await signMessage(replyTo(request), other, {
    now: now(),
    requestMac: checked.mac,
  });
  await socket.send(forged.message, from);
  const out = await dig;
  assert.match(
    new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr),
    /Couldn't verify signature/,
  );
});

Deno.test("tsig: BADKEY for a key not held or another algorithm, BADTIME outside the fudge", async () => {
  const key = keyOf();
  const request = (await signMessage(queryBytes(), key, {
    now: 1_800_000_000,
  })).message;
  const at = (seconds: number, keys = only(key)) =>
    checkMessage(request, keys, { now: seconds });
  assert.equal((await at(1_800_000_000)).status, "ok");
  assert.equal((await at(1_800_000_299)).status, "ok", "within the fudge");
  const late = await at(1_800_000_301);
  assert.equal(late.status === "error" && late.error, TSIG_ERROR.BADTIME);
  const unknown = await at(1_800_000_000, () => undefined);
  assert.equal(unknown.status === "error" && unknown.error, TSIG_ERROR.BADKEY);
  assert.equal(
    unknown.status === "error" && unknown.keyName,
    "transfer.example.",
  );
  const sha512 = await at(
    1_800_000_000,
    () => ({ ...key, algorithm: "hmac-sha512" }),
  );
  assert.equal(sha512.status === "error" && sha512.error, TSIG_ERROR.BADKEY);
  // The key name is matched without regard to case.
  const upper = await checkMessage(
    (await signMessage(queryBytes(), { ...key, name: "TRANSFER.Example." }, {
      now: 1_800_000_000,
    })).message,
    only(key),
    { now: 1_800_000_000 },
  );
  assert.equal(upper.status, "ok");
});

Deno.test("tsig: a response covers its request's MAC; an unsigned message is unsigned; a TSIG before other records is malformed", async () => {
  const key = keyOf("hmac-sha384");
  const request = await signMessage(queryBytes(), key, { now: 1_800_000_000 });
  const reply = replyTo(request.message);
  const answer = await signMessage(reply, key, {
    now: 1_800_000_001,
    requestMac: request.mac,
  });
  const good = await checkMessage(answer.message, only(key), {
    now: 1_800_000_001,
    requestMac: request.mac,
  });
  assert.equal(good.status, "ok");
  const otherRequest = await checkMessage(answer.message, only(key), {
    now: 1_800_000_001,
    requestMac: new Uint8Array(48),
  });
  assert.equal(
    otherRequest.status === "error" && otherRequest.error,
    TSIG_ERROR.BADSIG,
  );
  assert.deepEqual(
    await checkMessage(queryBytes(), only(key), { now: 0 }),
    { status: "unsigned" },
  );
  // A second record after the TSIG: the TSIG must come last.
  const extra = new Uint8Array([
    ...answer.message,
    0,
    0,
    1,
    0,
    1,
    0,
    0,
    0,
    0,
    0,
    0, // ". A IN 0, no RDATA"
  ]);
  new DataView(extra.buffer).setUint16(10, 2);
  await assert.rejects(
    () => checkMessage(extra, only(key), { now: 1_800_000_001 }),
    WireFormatError,
  );
  // A message cut inside the TSIG.
  await assert.rejects(
    () =>
      checkMessage(
        answer.message.subarray(0, answer.message.length - 5),
        only(key),
        {
          now: 1_800_000_001,
        },
      ),
    WireFormatError,
  );
});

Deno.test("tsig: a MAC cut to half its length still checks; shorter is BADSIG", async () => {
  const key = keyOf();
  const signed = await signMessage(queryBytes(), key, { now: 1_800_000_000 });
  const cut = (octets: number) => {
    // Rewrite the TSIG's MAC Size and drop the MAC's tail.
    const message = signed.message;
    const macSizeAt = message.length - 6 - 32 - 2;
    const out = new Uint8Array([
      ...message.subarray(0, macSizeAt),
      octets >> 8,
      octets & 0xff,
      ...message.subarray(macSizeAt + 2, macSizeAt + 2 + octets),
      ...message.subarray(message.length - 6),
    ]);
    // The record's RDLENGTH shrinks by what was cut.
    // Header, question, the owner "transfer.example.", type, class and TTL.
    const rdlengthAt = 12 + 22 + 18 + 8;
    const view = new DataView(out.buffer);
    view.setUint16(rdlengthAt, view.getUint16(rdlengthAt) - (32 - octets));
    return out;
  };
  const half = await checkMessage(cut(16), only(key), { now: 1_800_000_000 });
  assert.equal(half.status, "ok");
  const short = await checkMessage(cut(12), only(key), { now: 1_800_000_000 });
  assert.equal(short.status === "error" && short.error, TSIG_ERROR.BADSIG);
});

/** A loopback UDP socket that closes when the test's scope ends. */
function listen(): Deno.DatagramConn & Disposable {
  const socket = Deno.listenDatagram({
    transport: "udp",
    hostname: "127.0.0.1",
    port: 0,
  });
  return Object.assign(socket, { [Symbol.dispose]: () => socket.close() });
}

/** A query for www.example.test. A, id 0x1234, no EDNS. */
function queryBytes(): Uint8Array {
  return new Uint8Array([
    0x12,
    0x34,
    0x01,
    0x00,
    0,
    1,
    0,
    0,
    0,
    0,
    0,
    0,
    3,
    119,
    119,
    119,
    7,
    101,
    120,
    97,
    109,
    112,
    108,
    101,
    4,
    116,
    101,
    115,
    116,
    0,
    0,
    1,
    0,
    1,
  ]);
}
