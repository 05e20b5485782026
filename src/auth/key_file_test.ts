import assert from "node:assert/strict";
import { join } from "node:path";
import { GENERATED_KEY_PATH, readOrCreateKeyFile } from "./key_file.ts";
import { parseEncryptionKey } from "./key_text.ts";

const KEY = Uint8Array.from({ length: 32 }, (_, i) => i * 7 + 3);

async function withTempDir(f: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-key-file-" });
  try {
    await f(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("readOrCreateKeyFile makes a private key file once and reads it back", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, GENERATED_KEY_PATH);
    const notes: string[] = [];
    const made = await readOrCreateKeyFile(path, notes);
    assert.equal(made.source, path);
    assert.deepEqual(notes, [
      `Generated an encryption key in ${path}: keep it with the data directory's backups (without it, sealed TOTP secrets cannot be opened), and give every node the same key through KUDURRU_ENCRYPTION_KEY_FILE`,
    ]);
    assert.equal((await Deno.stat(join(dir, "keys"))).mode! & 0o777, 0o700);
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    const text = await Deno.readTextFile(path);
    assert.match(text, /^[A-Za-z0-9+/]{43}=\n$/);
    assert.deepEqual(made.bytes, parseEncryptionKey(text, path));
    // Only the key file: the temporary file is gone.
    const names = [];
    for await (const e of Deno.readDir(join(dir, "keys"))) names.push(e.name);
    assert.deepEqual(names, ["encryption.key"]);

    const laterNotes: string[] = [];
    const again = await readOrCreateKeyFile(path, laterNotes);
    assert.deepEqual(again.bytes, made.bytes);
    assert.deepEqual(laterNotes, []);
  });
});

Deno.test("readOrCreateKeyFile gives racing first starts the same key, and one says it made it", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, GENERATED_KEY_PATH);
    const notes: string[] = [];
    const all = await Promise.all(
      Array.from({ length: 8 }, () => readOrCreateKeyFile(path, notes)),
    );
    assert.equal(new Set(all.map((k) => k.bytes.toHex())).size, 1);
    assert.equal(notes.length, 1);
    assert.match(notes[0]!, /^Generated an encryption key in /);
  });
});

Deno.test("readOrCreateKeyFile refuses a key file others may read or change, and notes a group-readable one", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, GENERATED_KEY_PATH);
    const made = await readOrCreateKeyFile(path, []);
    for (const mode of [0o644, 0o604, 0o620, 0o602, 0o666]) {
      await Deno.chmod(path, mode);
      await assert.rejects(readOrCreateKeyFile(path, []), {
        message: `Cannot use the encryption key "${path}": its mode 0${
          mode.toString(8)
        } lets other users read or change it; run chmod 600 "${path}" (and check who could have copied it)`,
      });
    }
    await Deno.chmod(path, 0o640);
    const notes: string[] = [];
    const key = await readOrCreateKeyFile(path, notes);
    assert.deepEqual(key.bytes, made.bytes);
    assert.deepEqual(notes, [
      `The encryption key "${path}" is readable by its group (mode 0640); chmod 600 would keep it to kudurru's user`,
    ]);
    await Deno.chmod(path, 0o400);
    const readOnly: string[] = [];
    await readOrCreateKeyFile(path, readOnly);
    assert.deepEqual(readOnly, []);
  });
});

Deno.test("readOrCreateKeyFile refuses a damaged key file instead of replacing it", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, GENERATED_KEY_PATH);
    await Deno.mkdir(join(dir, "keys"), { mode: 0o700 });
    const truncated = `${KEY.toBase64().slice(0, 20)}\n`;
    await Deno.writeTextFile(path, truncated, { mode: 0o600 });
    await assert.rejects(readOrCreateKeyFile(path, []), {
      message: new RegExp(
        `^Cannot use the encryption key "${path}": the key is too short \\(15 bytes\\);`,
      ),
    });
    assert.equal(await Deno.readTextFile(path), truncated);

    await Deno.remove(path);
    await Deno.mkdir(path);
    await assert.rejects(readOrCreateKeyFile(path, []), {
      message:
        `Cannot read the encryption key "${path}": it is not a file; remove it, or give the key in KUDURRU_ENCRYPTION_KEY_FILE`,
    });
  });
});

Deno.test("readOrCreateKeyFile says when it cannot create the key file", async () => {
  await withTempDir(async (dir) => {
    // A file where the data directory should be stops root too (tests
    // may run as root, which a read-only mode would not stop).
    const dataDir = join(dir, "data");
    await Deno.writeTextFile(dataDir, "");
    const path = join(dataDir, GENERATED_KEY_PATH);
    await assert.rejects(readOrCreateKeyFile(path, []), {
      message: new RegExp(
        `^Cannot create the encryption key "${path}": .+; make the data directory writable, or give the key in KUDURRU_ENCRYPTION_KEY_FILE$`,
      ),
    });
  });
});
