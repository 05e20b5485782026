import assert from "node:assert/strict";
import { join } from "node:path";
import { checkMessage, type TsigAlgorithm } from "../dns/tsig/tsig.ts";
import { runCli } from "./run.ts";
import { bufferIO } from "./command.ts";

async function kudurru(args: string[]) {
  const b = bufferIO();
  const code = await runCli(args, b.io);
  return { code, stdout: b.stdout(), stderr: b.stderr() };
}

/** The algorithm and secret of a BIND key statement. */
function parseBind(text: string) {
  const m =
    /^key "([^"]+)" \{\n\talgorithm ([a-z0-9-]+);\n\tsecret "([A-Za-z0-9+/=]+)";\n\};\n$/
      .exec(text);
  assert.ok(m, text);
  return { name: m[1]!, algorithm: m[2]! as TsigAlgorithm, secret: m[3]! };
}

Deno.test("kudurru tsig generate: a BIND key that dig -k signs with, and our check accepts", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-tsig-" });
  try {
    const made = await kudurru(["tsig", "generate", "transfer.example"]);
    assert.equal(made.code, 0, made.stderr);
    const key = parseBind(made.stdout);
    assert.equal(key.name, "transfer.example.");
    assert.equal(key.algorithm, "hmac-sha256");
    const secret = Uint8Array.fromBase64(key.secret);
    assert.equal(secret.length, 32, "as long as the hash");
    const file = join(dir, "transfer.key");
    await Deno.writeTextFile(file, made.stdout);

    const socket = Deno.listenDatagram({
      transport: "udp",
      hostname: "127.0.0.1",
      port: 0,
    });
    try {
      const dig = new Deno.Command("dig", {
        args: [
          "@127.0.0.1",
          "-p",
          String((socket.addr as Deno.NetAddr).port),
          "-k",
          file,
          "www.example.test",
          "A",
          "+tries=1",
          "+time=1",
        ],
        stdout: "null",
        stderr: "piped",
      }).output();
      const [request] = await socket.receive();
      const check = await checkMessage(
        request,
        (name) =>
          name === key.name
            ? { name, algorithm: key.algorithm, secret }
            : undefined,
        { now: Date.now() / 1000 },
      );
      assert.equal(check.status, "ok", JSON.stringify(check));
      await dig; // it times out: nothing answers it
    } finally {
      socket.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kudurru tsig generate --format knot: an entry Knot's configuration check accepts", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-tsig-" });
  try {
    const made = await kudurru([
      "tsig",
      "generate",
      "xfr.example.com.",
      "--algorithm",
      "hmac-sha512",
      "--format",
      "knot",
    ]);
    assert.equal(made.code, 0, made.stderr);
    assert.match(
      made.stdout,
      /^key:\n {2}- id: xfr\.example\.com\.\n {4}algorithm: hmac-sha512\n {4}secret: [A-Za-z0-9+/=]{88}\n$/,
    );
    const conf = join(dir, "knot.conf");
    await Deno.writeTextFile(
      conf,
      `server:\n    listen: 127.0.0.1@53\n${made.stdout}`,
    );
    const checked = await new Deno.Command("knotc", {
      args: ["-c", conf, "conf-check"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(
      checked.success,
      new TextDecoder().decode(checked.stdout) +
        new TextDecoder().decode(checked.stderr),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kudurru tsig: each algorithm's secret is as long as its hash; bad use is a usage error", async () => {
  for (
    const [algorithm, octets] of [
      ["hmac-sha1", 20],
      ["hmac-sha384", 48],
      ["hmac-sha512", 64],
    ] as const
  ) {
    const made = await kudurru([
      "tsig",
      "generate",
      "k",
      "--algorithm",
      algorithm,
    ]);
    assert.equal(
      Uint8Array.fromBase64(parseBind(made.stdout).secret).length,
      octets,
    );
  }
  const two = [
    await kudurru(["tsig", "generate", "k"]),
    await kudurru(["tsig", "generate", "k"]),
  ];
  assert.notEqual(two[0]!.stdout, two[1]!.stdout, "a new secret each time");
  for (
    const [args, message] of [
      [["tsig"], /name a subcommand: generate/],
      [["tsig", "make", "k"], /unknown subcommand "make"/],
      [["tsig", "generate"], /name the key/],
      [["tsig", "generate", 'a"b'], /must be a domain name/],
      [["tsig", "generate", "k", "--algorithm", "md5"], /--algorithm takes/],
      [
        ["tsig", "generate", "k", "--format", "nsd"],
        /--format takes bind or knot/,
      ],
    ] as const
  ) {
    const refused = await kudurru([...args]);
    assert.equal(refused.code, 2, args.join(" "));
    assert.match(refused.stderr, message);
  }
});
