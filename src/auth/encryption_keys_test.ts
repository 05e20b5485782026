import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import {
  derivePurposeKey,
  type EncryptionKeySources,
  loadEncryptionKeys,
  masterKey,
} from "./encryption_keys.ts";
import { GENERATED_KEY_PATH } from "./key_file.ts";
import { parseEncryptionKey } from "./key_text.ts";

const KEY = Uint8Array.from({ length: 32 }, (_, i) => i * 7 + 3);
const OTHER = Uint8Array.from({ length: 32 }, (_, i) => 255 - i * 5);

/** Sources from a plain object of variables and fake files. */
function sources(
  dataDir: string,
  vars: Record<string, string>,
  files: Record<string, string> = {},
): EncryptionKeySources {
  return {
    env: (name) => vars[name],
    dataDir,
    readFile: (path) =>
      path in files
        ? Promise.resolve(files[path]!)
        : Promise.reject(new Deno.errors.NotFound(`no such file ${path}`)),
  };
}

async function withTempDir(f: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-keys-" });
  try {
    await f(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The id masterKey should give: SHA-256 over the label and the key. */
function expectedId(bytes: Uint8Array): string {
  return createHash("sha256").update("kudurru key id v1\0").update(bytes)
    .digest("hex").slice(0, 8);
}

Deno.test("masterKey names a key by a short hash and never shows it", async () => {
  const key = await masterKey(KEY.slice(), "KUDURRU_ENCRYPTION_KEY");
  assert.equal(key.id, expectedId(KEY));
  assert.match(key.id, /^[0-9a-f]{8}$/);
  assert.equal((await masterKey(KEY.slice(), "elsewhere")).id, key.id);
  assert.notEqual((await masterKey(OTHER.slice(), "x")).id, key.id);
  assert.equal(key.key.extractable, false);
  await assert.rejects(crypto.subtle.exportKey("raw", key.key));
  const shown = JSON.stringify(key) + Deno.inspect(key, { depth: 10 });
  for (const form of [KEY.toHex(), KEY.toBase64(), KEY.join(", ")]) {
    assert.ok(!shown.includes(form), shown);
  }
});

Deno.test("derivePurposeKey gives each purpose its own non-extractable AES-256-GCM key", async () => {
  const master = await masterKey(KEY.slice(), "test");
  const session = await derivePurposeKey(master, "sessionCookie");
  const totp = await derivePurposeKey(master, "totpSecret");
  assert.deepEqual(session.algorithm, { name: "AES-GCM", length: 256 });
  assert.equal(session.extractable, false);
  assert.deepEqual([...session.usages].sort(), ["decrypt", "encrypt"]);
  const iv = new Uint8Array(12);
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv },
    session,
    new TextEncoder().encode("hello"),
  );
  // Derived again, the same key; for another purpose, another key.
  const again = await derivePurposeKey(master, "sessionCookie");
  assert.equal(
    new TextDecoder().decode(
      await crypto.subtle.decrypt({ name: "AES-GCM", iv }, again, sealed),
    ),
    "hello",
  );
  await assert.rejects(
    crypto.subtle.decrypt({ name: "AES-GCM", iv }, totp, sealed),
  );
  const otherMaster = await masterKey(OTHER.slice(), "test");
  await assert.rejects(
    crypto.subtle.decrypt(
      { name: "AES-GCM", iv },
      await derivePurposeKey(otherMaster, "sessionCookie"),
      sealed,
    ),
  );
});

Deno.test("loadEncryptionKeys takes the keys from the environment", async () => {
  const keys = await loadEncryptionKeys(
    sources("/nonexistent/data", {
      KUDURRU_ENCRYPTION_KEY: KEY.toBase64(),
      KUDURRU_ENCRYPTION_KEY_PREVIOUS: OTHER.toHex(),
    }),
  );
  assert.equal(keys.current.id, expectedId(KEY));
  assert.equal(keys.current.source, "KUDURRU_ENCRYPTION_KEY");
  assert.equal(keys.previous?.id, expectedId(OTHER));
  assert.equal(keys.previous?.source, "KUDURRU_ENCRYPTION_KEY_PREVIOUS");
  assert.deepEqual(keys.notes, []);
});

Deno.test("loadEncryptionKeys reads the _FILE variables through readFile", async () => {
  const keys = await loadEncryptionKeys(
    sources("/nonexistent/data", {
      KUDURRU_ENCRYPTION_KEY_FILE: "/run/secrets/key",
      KUDURRU_ENCRYPTION_KEY_PREVIOUS_FILE: "/run/secrets/old",
    }, {
      "/run/secrets/key": `${KEY.toBase64()}\n`,
      "/run/secrets/old": OTHER.toBase64({ alphabet: "base64url" }),
    }),
  );
  assert.equal(keys.current.id, expectedId(KEY));
  assert.equal(
    keys.current.source,
    'KUDURRU_ENCRYPTION_KEY_FILE ("/run/secrets/key")',
  );
  assert.equal(keys.previous?.id, expectedId(OTHER));
});

Deno.test("loadEncryptionKeys says which variable is wrong", async (t) => {
  const dir = "/nonexistent/data";
  const cases: [string, Record<string, string>, string][] = [
    [
      "both forms set",
      {
        KUDURRU_ENCRYPTION_KEY: KEY.toBase64(),
        KUDURRU_ENCRYPTION_KEY_FILE: "/run/secrets/key",
      },
      "Cannot read the encryption key: KUDURRU_ENCRYPTION_KEY and KUDURRU_ENCRYPTION_KEY_FILE are both set; set only one of them",
    ],
    [
      "a missing file",
      { KUDURRU_ENCRYPTION_KEY_FILE: "/run/secrets/none" },
      'Cannot read the encryption key from "/run/secrets/none" (KUDURRU_ENCRYPTION_KEY_FILE): no such file /run/secrets/none',
    ],
    [
      "an empty _FILE",
      { KUDURRU_ENCRYPTION_KEY_FILE: "" },
      "Cannot read the encryption key: KUDURRU_ENCRYPTION_KEY_FILE is empty; name the file that holds the key",
    ],
    [
      "a short key",
      { KUDURRU_ENCRYPTION_KEY: "c2hvcnQ=" },
      "Cannot use KUDURRU_ENCRYPTION_KEY: the key is too short (5 bytes);",
    ],
    [
      "a short previous key",
      {
        KUDURRU_ENCRYPTION_KEY: KEY.toBase64(),
        KUDURRU_ENCRYPTION_KEY_PREVIOUS: "abcd",
      },
      "Cannot use KUDURRU_ENCRYPTION_KEY_PREVIOUS: the key is too short (2 bytes);",
    ],
    [
      "a bad key in a file",
      { KUDURRU_ENCRYPTION_KEY_FILE: "/run/secrets/key" },
      'Cannot use KUDURRU_ENCRYPTION_KEY_FILE ("/run/secrets/key"): it is neither hex nor base64;',
    ],
  ];
  for (const [name, vars, want] of cases) {
    await t.step(name, async () => {
      await assert.rejects(
        loadEncryptionKeys(
          sources(dir, vars, { "/run/secrets/key": "not a key at all" }),
        ),
        (err: unknown) => {
          assert.ok(err instanceof Error);
          assert.ok(err.message.startsWith(want), err.message);
          return true;
        },
      );
    });
  }
});

Deno.test("loadEncryptionKeys ignores a previous key equal to the current one, with a note", async () => {
  const keys = await loadEncryptionKeys(
    sources("/nonexistent/data", {
      KUDURRU_ENCRYPTION_KEY: KEY.toBase64(),
      KUDURRU_ENCRYPTION_KEY_PREVIOUS: KEY.toHex(),
    }),
  );
  assert.equal(keys.previous, undefined);
  assert.deepEqual(keys.notes, [
    "KUDURRU_ENCRYPTION_KEY_PREVIOUS holds the same key as KUDURRU_ENCRYPTION_KEY; it is ignored (unset it once every node has the new key)",
  ]);
});

Deno.test("loadEncryptionKeys without a key in the environment uses the generated key file", async () => {
  await withTempDir(async (dir) => {
    const first = await loadEncryptionKeys(sources(dir, {}));
    const path = join(dir, GENERATED_KEY_PATH);
    assert.equal(first.current.source, path);
    assert.equal(first.previous, undefined);
    assert.equal(first.notes.length, 1);
    assert.match(first.notes[0]!, /^Generated an encryption key in /);
    const text = await Deno.readTextFile(path);
    assert.equal(first.current.id, expectedId(parseEncryptionKey(text, path)));

    const second = await loadEncryptionKeys(sources(dir, {}));
    assert.equal(second.current.id, first.current.id);
    assert.deepEqual(second.notes, []);
    // With a previous key beside it, for a rotation away from the file.
    const rotating = await loadEncryptionKeys(
      sources(dir, { KUDURRU_ENCRYPTION_KEY_PREVIOUS: KEY.toBase64() }),
    );
    assert.equal(rotating.current.id, first.current.id);
    assert.equal(rotating.previous?.id, expectedId(KEY));
  });
});

Deno.test("loadEncryptionKeys with a key from the environment neither writes nor needs a file", async () => {
  await withTempDir(async (dir) => {
    const keys = await loadEncryptionKeys(
      sources(dir, { KUDURRU_ENCRYPTION_KEY: KEY.toBase64() }),
    );
    assert.equal(keys.current.id, expectedId(KEY));
    assert.deepEqual(keys.notes, []);
    const entries = [];
    for await (const e of Deno.readDir(dir)) entries.push(e.name);
    assert.deepEqual(entries, []);
  });
});

Deno.test("loadEncryptionKeys notes a generated key the environment leaves unused", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, GENERATED_KEY_PATH);
    const generated = await loadEncryptionKeys(sources(dir, {}));
    const replaced = await loadEncryptionKeys(
      sources(dir, { KUDURRU_ENCRYPTION_KEY: KEY.toBase64() }),
    );
    assert.equal(replaced.current.id, expectedId(KEY));
    assert.deepEqual(replaced.notes, [
      `KUDURRU_ENCRYPTION_KEY is set, so the key kudurru generated in ${path} is not used: what it sealed (sessions, TOTP secrets) will not open unless KUDURRU_ENCRYPTION_KEY_PREVIOUS_FILE names that file`,
    ]);
    // Named as the previous key: no note, and it still opens old envelopes.
    const rotated = await loadEncryptionKeys({
      env: (name) =>
        ({
          KUDURRU_ENCRYPTION_KEY: KEY.toBase64(),
          KUDURRU_ENCRYPTION_KEY_PREVIOUS_FILE: path,
        })[name],
      dataDir: dir,
    });
    assert.equal(rotated.previous?.id, generated.current.id);
    assert.deepEqual(rotated.notes, []);
  });
});
