import assert from "node:assert/strict";
import { join } from "node:path";
import { memoryLogger } from "../log/logger.ts";
import {
  parseTsigKeyFile,
  readTsigKeys,
  watchTsigKeys,
} from "./tsig_key_files.ts";

const SECRET = "u8hAePjqt3m6vbC2ZKQd+U1SE5G0kH3BhYy3LwB8r5s=";
const BIND =
  `key "Xfr.Example" {\n\talgorithm hmac-sha256;\n\tsecret "${SECRET}";\n};\n`;

Deno.test("parseTsigKeyFile reads what kudurru tsig generate prints, in any spacing, with comments", () => {
  for (
    const text of [
      BIND,
      `# made for the secondaries\nkey xfr.example. { algorithm HMAC-SHA256; secret "${SECRET}"; };`,
      `key "xfr.example." {algorithm hmac-sha256;secret "${SECRET}";} // end`,
    ]
  ) {
    const key = parseTsigKeyFile(text, "xfr");
    assert.equal(key.ref, "xfr");
    assert.equal(key.name, "xfr.example.");
    assert.equal(key.algorithm, "hmac-sha256");
    assert.deepEqual(key.secret, Uint8Array.fromBase64(SECRET));
  }
});

Deno.test("parseTsigKeyFile keeps a secret that holds // whole: comments are cut outside quotes only", () => {
  // About one generated key in a hundred has "//" in its base64.
  const slashes = "ABDjEaGoiMBaGg8zPnZo//d1mDfaPkUqjIYZpDYg/TI=";
  const text =
    `key "xfr.example." { # a comment\n\talgorithm hmac-sha256; // another\n\tsecret "${slashes}";\n};\n`;
  assert.deepEqual(
    parseTsigKeyFile(text, "xfr").secret,
    Uint8Array.fromBase64(slashes),
  );
  // Every secret kudurru tsig generate could print reads back whole.
  for (let i = 0; i < 2000; i++) {
    const secret = crypto.getRandomValues(new Uint8Array(32)).toBase64();
    const key = parseTsigKeyFile(
      `key "k." {\n\talgorithm hmac-sha256;\n\tsecret "${secret}";\n};\n`,
      "k",
    );
    assert.equal(key.secret.toBase64(), secret);
  }
});

Deno.test("parseTsigKeyFile says what is wrong and never quotes the secret", () => {
  const cases: [string, RegExp][] = [
    ["secret only", /one BIND key statement/],
    [
      `key "k." { algorithm hmac-md5; secret "${SECRET}"; };`,
      /algorithm must be one of/,
    ],
    [
      `key "k." { algorithm hmac-sha256; secret "%%${SECRET}"; };`,
      /not base64/,
    ],
    [`key "k." { algorithm hmac-sha256; };`, /missing or empty/],
    [
      `key "k." { algorithm hmac-sha256; secret "${SECRET}"; bogus; };`,
      /cannot read "bogus"/,
    ],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseTsigKeyFile(text, "k"), (error: Error) => {
      assert.match(error.message, message);
      assert.ok(!error.message.includes(SECRET.slice(3, 20)));
      return true;
    });
  }
});

Deno.test("readTsigKeys takes good files, names the bad ones, and a missing directory is no keys", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assert.deepEqual(await readTsigKeys(join(dir, "none")), {
      keys: [],
      problems: [],
    });
    await Deno.writeTextFile(join(dir, "xfr.key"), BIND);
    await Deno.writeTextFile(join(dir, "Upper.key"), BIND);
    await Deno.writeTextFile(join(dir, "again.key"), BIND);
    await Deno.writeTextFile(join(dir, "broken.key"), "key {");
    await Deno.writeTextFile(join(dir, "notes.txt"), "not a key");
    const { keys, problems } = await readTsigKeys(dir);
    assert.deepEqual(keys.map((k) => k.ref), ["again"]);
    assert.deepEqual(
      problems.map((p) => [p.file.slice(dir.length + 1), p.error.slice(0, 20)]),
      [
        ["broken.key", "expected one BIND ke"],
        ["Upper.key", "the name before .key"],
        ["xfr.key", "another file already"],
      ],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("watchTsigKeys reports the keys at once and again when they change, logging a bad file once", async () => {
  const dir = await Deno.makeTempDir();
  const logger = memoryLogger();
  const seen: string[][] = [];
  await Deno.writeTextFile(join(dir, "xfr.key"), BIND);
  await Deno.writeTextFile(join(dir, "bad.key"), "nonsense");
  const watch = await watchTsigKeys(
    dir,
    logger,
    (keys) => seen.push(keys.map((k) => k.ref)),
    20,
  );
  try {
    assert.deepEqual(seen, [["xfr"]]);
    await new Promise((r) => setTimeout(r, 80));
    assert.deepEqual(seen, [["xfr"]], "unchanged keys are not reported again");
    await Deno.remove(join(dir, "xfr.key"));
    const deadline = Date.now() + 5000;
    while (seen.length < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(seen, [["xfr"], []]);
    const warnings = logger.lines.filter((l) =>
      l.includes("TSIG key file left out")
    );
    assert.equal(warnings.length, 1);
  } finally {
    watch[Symbol.dispose]();
    await Deno.remove(dir, { recursive: true });
  }
});
