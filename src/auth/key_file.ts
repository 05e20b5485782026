/**
 * The key file kudurru generates when no key is given
 * (`<dataDir>/keys/encryption.key`): made once, private (directory 0700,
 * file 0600), written whole before it gets its name, never replaced, and
 * refused at later starts if others could read or change it.
 */
import { dirname, join } from "node:path";
import { toBase64url } from "./base64url.ts";
import { newEncryptionKeyText, parseEncryptionKey } from "./key_text.ts";

/** Where a generated key is kept, relative to the data directory. */
export const GENERATED_KEY_PATH = join("keys", "encryption.key");

/** Mode of the keys directory: only kudurru's user may enter it. */
export const KEYS_DIR_MODE = 0o700;

/** Mode of a key file kudurru writes. */
export const KEY_FILE_MODE = 0o600;

/** The variable to name in advice: the way to give a key instead. */
const KEY_FILE_VARIABLE = "KUDURRU_ENCRYPTION_KEY_FILE";

/** A key read from a file, with where it came from. */
export interface FileKey {
  bytes: Uint8Array;
  source: string;
}

/**
 * The key in `path`, made when the file is missing. The file is written
 * whole before it gets its name, and never over an existing one: if two
 * processes race, both end up with the first one's key.
 *
 * @param notes gets what the operator should hear: that a key was made,
 *   or that the file's group may read it
 * @throws {Error} naming `path` when the key cannot be read or made, is
 *   damaged, or others may read or change it
 */
export async function readOrCreateKeyFile(
  path: string,
  notes: string[],
): Promise<FileKey> {
  const existing = await readKeyFile(path, notes);
  if (existing) return existing;
  const cannot = (err: unknown) =>
    new Error(
      `Cannot create the encryption key "${path}": ${
        messageOf(err)
      }; make the data directory writable, or give the key in ${KEY_FILE_VARIABLE}`,
      { cause: err },
    );
  try {
    await Deno.mkdir(dirname(path), { recursive: true, mode: KEYS_DIR_MODE });
  } catch (err) {
    throw cannot(err);
  }
  let won = true;
  try {
    await writeNewFile(path, `${newEncryptionKeyText()}\n`);
  } catch (err) {
    // Another process made it first: its key is the one to use.
    if (!(err instanceof Deno.errors.AlreadyExists)) throw cannot(err);
    won = false;
  }
  const made = await readKeyFile(path, notes);
  if (!made) {
    throw new Error(
      `Cannot read the encryption key "${path}" just written: it disappeared`,
    );
  }
  if (won) {
    notes.push(
      `Generated an encryption key in ${path}: keep it with the data directory's backups (without it, sealed TOTP secrets cannot be opened), and give every node the same key through ${KEY_FILE_VARIABLE}`,
    );
  }
  return made;
}

/** The key in a generated key file, or undefined when there is none. */
async function readKeyFile(
  path: string,
  notes: string[],
): Promise<FileKey | undefined> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (err) {
    // Not there; creating it will say what is in the way.
    if (
      err instanceof Deno.errors.NotFound ||
      err instanceof Deno.errors.NotADirectory
    ) {
      return undefined;
    }
    throw new Error(
      `Cannot read the encryption key "${path}": ${messageOf(err)}`,
      { cause: err },
    );
  }
  if (!info.isFile) {
    throw new Error(
      `Cannot read the encryption key "${path}": it is not a file; remove it, or give the key in ${KEY_FILE_VARIABLE}`,
    );
  }
  const mode = info.mode === null ? 0 : info.mode & 0o777;
  // Anyone who reads the key can forge sessions, and anyone who replaces
  // it can make everything sealed unreadable: refuse a file others may
  // read or anyone but its owner may change, as ssh refuses such a
  // private key. Group read is only noted, since the keys directory
  // (0700) keeps the group out.
  if (mode & 0o026) {
    throw new Error(
      `Cannot use the encryption key "${path}": its mode ${
        octal(mode)
      } lets other users read or change it; run chmod 600 "${path}" (and check who could have copied it)`,
    );
  }
  if (mode & 0o040) {
    notes.push(
      `The encryption key "${path}" is readable by its group (mode ${
        octal(mode)
      }); chmod 600 would keep it to kudurru's user`,
    );
  }
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    throw new Error(
      `Cannot read the encryption key "${path}": ${messageOf(err)}`,
      { cause: err },
    );
  }
  return {
    bytes: parseEncryptionKey(text, `the encryption key "${path}"`),
    source: path,
  };
}

/**
 * Writes `text` to `path`, which must not exist, mode 0600: first to a
 * temporary file beside it (flushed), then linked to its name, which fails
 * rather than replace a file another process made meanwhile.
 */
async function writeNewFile(path: string, text: string): Promise<void> {
  const temp = `${path}.${
    toBase64url(crypto.getRandomValues(new Uint8Array(6)))
  }.tmp`;
  try {
    {
      using file = await Deno.open(temp, {
        write: true,
        createNew: true,
        mode: KEY_FILE_MODE,
      });
      await Deno.chmod(temp, KEY_FILE_MODE); // the umask could only narrow it; be exact
      const bytes = new TextEncoder().encode(text);
      for (let done = 0; done < bytes.length;) {
        done += await file.write(bytes.subarray(done));
      }
      await file.sync();
    }
    try {
      await Deno.link(temp, path);
    } catch (err) {
      // A file system without hard links: rename, which is atomic but
      // replaces; the data directory lock keeps a second server out anyway.
      if (err instanceof Deno.errors.AlreadyExists) throw err;
      if (await exists(path)) throw new Deno.errors.AlreadyExists(path);
      await Deno.rename(temp, path);
    }
  } finally {
    await Deno.remove(temp).catch(() => {});
  }
  await syncDirectory(dirname(path));
}

/** Makes a new name durable; best effort (not every system can). */
async function syncDirectory(dir: string): Promise<void> {
  try {
    using handle = await Deno.open(dir, { read: true });
    await handle.sync();
  } catch {
    // the key file is complete either way; only its name may not survive a crash
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, "0")}`;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
