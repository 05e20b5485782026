import assert from "node:assert/strict";
import {
  checkMessage,
  signStream,
  TSIG_ERROR,
  type TsigKey,
  TsigStreamCheck,
} from "./tsig.ts";

const key: TsigKey = {
  name: "transfer.example.",
  algorithm: "hmac-sha256",
  secret: crypto.getRandomValues(new Uint8Array(32)),
};
const NOW = 1_800_000_000;

const wireName = (name: string) =>
  new Uint8Array([
    ...name.split(".").filter(Boolean).flatMap((l) => [
      l.length,
      ...new TextEncoder().encode(l),
    ]),
    0,
  ]);
const u16 = (n: number) => [n >> 8, n & 0xff];
const u32 = (
  n: number,
) => [n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];

function rr(name: string, type: number, rdata: number[]): number[] {
  return [
    ...wireName(name),
    ...u16(type),
    ...u16(1),
    ...u32(3600),
    ...u16(rdata.length),
    ...rdata,
  ];
}
const soa = rr("example.test.", 6, [
  ...wireName("ns.example.test."),
  ...wireName("admin.example.test."),
  ...u32(2026120201),
  ...u32(3600),
  ...u32(600),
  ...u32(86400),
  ...u32(300),
]);
const a = (host: string, last: number) =>
  rr(`${host}.example.test.`, 1, [192, 0, 2, last]);

/** example.test. AXFR IN. */
const QUESTION = [...wireName("example.test."), ...u16(252), ...u16(1)];

/** The messages of an AXFR of example.test.: SOA first and last. */
function axfrMessages(id: number, question: number[]) {
  const message = (records: number[][], withQuestion: boolean) =>
    new Uint8Array([
      ...u16(id),
      0x84, // QR, AA
      0x00,
      ...u16(withQuestion ? 1 : 0),
      ...u16(records.length),
      0,
      0,
      0,
      0,
      ...(withQuestion ? question : []),
      ...records.flat(),
    ]);
  return [
    message([soa, a("www", 1)], true),
    message([a("mail", 2), a("ns", 3)], false),
    message([a("db", 4)], false),
    message([a("web", 5), soa], false),
  ];
}

Deno.test("tsig streams: every message signed, or every other, checks in order; a change or a missing last signature does not", async () => {
  const requestMac = crypto.getRandomValues(new Uint8Array(32));
  for (const every of [1, 2, 100]) {
    const signed = await signStream(axfrMessages(7, QUESTION), key, {
      now: NOW,
      requestMac,
      every,
    });
    const check = new TsigStreamCheck(key, requestMac, () => NOW);
    const seen = [];
    for (const m of signed) seen.push((await check.next(m)).status);
    assert.equal(seen[0], "ok", `every ${every}`);
    assert.equal(seen.at(-1), "ok", `every ${every}: the last is signed`);
    assert.equal(
      seen.filter((s) => s === "unsigned").length,
      { 1: 0, 2: 1, 100: 2 }[every],
      `every ${every}: ${seen}`,
    );
    assert.equal(check.end(), true);

    // One octet of a record changed in the middle: the next signature fails.
    const tampered = signed.map((m) => m.slice());
    flip(tampered[2]!);
    const recheck = new TsigStreamCheck(key, requestMac, () => NOW);
    const results = [];
    for (const m of tampered) results.push(await recheck.next(m));
    assert.ok(
      results.some((r) =>
        r.status === "error" && r.error === TSIG_ERROR.BADSIG
      ),
      `every ${every}: ${results.map((r) => r.status)}`,
    );
  }
  // The first message must be signed, and for this request.
  const signed = await signStream(axfrMessages(7, QUESTION), key, {
    now: NOW,
    requestMac,
  });
  const otherRequest = new TsigStreamCheck(key, new Uint8Array(32), () => NOW);
  const first = await otherRequest.next(signed[0]!);
  assert.equal(first.status === "error" && first.error, TSIG_ERROR.BADSIG);
  const unsignedFirst = new TsigStreamCheck(key, requestMac, () => NOW);
  const bare = await unsignedFirst.next(axfrMessages(7, QUESTION)[0]!);
  assert.equal(bare.status, "error");
  // A stream whose last message came unsigned may not end there.
  const cut = new TsigStreamCheck(key, requestMac, () => NOW);
  await cut.next(signed[0]!);
  assert.equal(
    (await cut.next(axfrMessages(7, QUESTION)[1]!)).status,
    "unsigned",
  );
  assert.equal(cut.end(), false);
  // Late: BADTIME on a later message too.
  const late = new TsigStreamCheck(key, requestMac, () => NOW);
  assert.equal((await late.next(signed[0]!)).status, "ok");
  const lateNow = new TsigStreamCheck(key, requestMac, () => NOW + 301);
  const lateFirst = await lateNow.next(signed[0]!);
  assert.equal(
    lateFirst.status === "error" && lateFirst.error,
    TSIG_ERROR.BADTIME,
  );
});

Deno.test("tsig streams: dig's AXFR verifies a transfer signed message by message, and refuses one changed on the way", async () => {
  for (const tamper of [false, true]) {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    const dig = new Deno.Command("dig", {
      args: [
        "@127.0.0.1",
        "-p",
        String(port),
        "example.test",
        "AXFR",
        "+tries=1",
        "+time=3",
        "-y",
        `hmac-sha256:transfer.example:${key.secret.toBase64()}`,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const conn = await listener.accept();
    try {
      const length = new Uint8Array(2);
      await readFull(conn, length);
      const request = new Uint8Array((length[0]! << 8) | length[1]!);
      await readFull(conn, request);
      const check = await checkMessage(
        request,
        (name) => (name === key.name ? key : undefined),
        { now: Date.now() / 1000 },
      );
      assert.ok(check.status === "ok", JSON.stringify(check));
      // The question: from after the header to just after QTYPE and QCLASS.
      let end = 12;
      while (request[end] !== 0) end += request[end]! + 1;
      const question = [...request.subarray(12, end + 5)];
      const id = (request[0]! << 8) | request[1]!;
      const signed = await signStream(axfrMessages(id, question), key, {
        now: Date.now() / 1000,
        requestMac: check.mac,
      });
      if (tamper) flip(signed[1]!);
      for (const m of signed) {
        await conn.write(new Uint8Array([...u16(m.length), ...m]));
      }
    } finally {
      conn.close();
      listener.close();
    }
    const out = await dig;
    const text = new TextDecoder().decode(out.stdout) +
      new TextDecoder().decode(out.stderr);
    if (tamper) {
      assert.match(text, /tsig verify failure|Couldn't verify|failed/i, text);
    } else {
      assert.doesNotMatch(text, /verify failure|Couldn't verify|failed/i, text);
      assert.match(
        text,
        /^db\.example\.test\.\s+3600\s+IN\s+A\s+192\.0\.2\.4$/m,
      );
      assert.match(text, /XFR size: 7 records \(messages 4/, text);
    }
  }
});

async function readFull(conn: Deno.Conn, into: Uint8Array): Promise<void> {
  let at = 0;
  while (at < into.length) {
    const n = await conn.read(into.subarray(at));
    if (n === null) throw new Error("the connection closed");
    at += n;
  }
}

/** Changes a letter of the first record's owner name (not a length). */
function flip(message: Uint8Array): void {
  message[14] = message[14]! ^ 1;
}
