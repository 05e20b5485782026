/**
 * TSIG keys (RFC 8945) are files, not objects: `<dataDir>/keys/tsig/<ref>.key`,
 * each holding one BIND `key` statement (what `kudurru tsig generate`
 * prints). A zone names keys by `<ref>` (`policy.transferTSIGKeyRefs`), so
 * a secret never enters the store, an export, an API response or a log; it
 * is as private as the file's mode makes it. The main thread reads the
 * directory and hands the keys to the workers in the snapshot.
 */
import { join } from "node:path";
import {
  TSIG_ALGORITHMS,
  type TsigAlgorithm,
  type TsigKey,
} from "../dns/tsig/tsig.ts";
import type { Logger } from "../log/logger.ts";

/** Where the keys live, under the data directory. */
export const TSIG_KEY_DIR = join("keys", "tsig");

/** A key and the name objects refer to it by (its file's name). */
export interface NamedTsigKey extends TsigKey {
  ref: string;
}

/** A file name that is a reference: what objectNameSchema admits. */
const REF = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;

const STATEMENT = /^\s*key\s+"?([A-Za-z0-9_.-]+?)"?\s*\{([^}]*)\}\s*;?\s*$/;

/**
 * The key of one BIND `key` statement, comments (`#`, `//`) allowed.
 *
 * @throws {Error} saying what is wrong, never quoting the secret
 */
export function parseTsigKeyFile(text: string, ref: string): NamedTsigKey {
  const bare = withoutComments(text);
  const statement = STATEMENT.exec(bare);
  if (statement === null) {
    throw new Error(
      'expected one BIND key statement: key "NAME" { algorithm hmac-sha256; secret "BASE64"; };',
    );
  }
  const fields = new Map<string, string>();
  for (const part of statement[2]!.split(";")) {
    const field = /^\s*([a-z-]+)\s+"?([^"]*?)"?\s*$/.exec(part);
    if (field !== null) fields.set(field[1]!, field[2]!);
    else if (part.trim() !== "") {
      throw new Error(`cannot read "${part.trim().split(/\s/)[0]}" in the key`);
    }
  }
  const algorithm = (fields.get("algorithm") ?? "").toLowerCase();
  if (!(algorithm in TSIG_ALGORITHMS)) {
    throw new Error(
      `algorithm must be one of ${Object.keys(TSIG_ALGORITHMS).join(", ")}`,
    );
  }
  let secret: Uint8Array;
  try {
    secret = Uint8Array.fromBase64(fields.get("secret") ?? "");
  } catch {
    throw new Error("secret is not base64");
  }
  if (secret.length === 0) throw new Error("secret is missing or empty");
  const name = statement[1]!.toLowerCase();
  return {
    ref,
    name: name.endsWith(".") ? name : `${name}.`,
    algorithm: algorithm as TsigAlgorithm,
    secret,
  };
}

/**
 * `text` without its `#` and `//` comments, outside quotes only: a base64
 * secret may hold "//" (about one key in a hundred), and cutting it there
 * served a different secret than the peer's, every MAC then BADSIG.
 */
function withoutComments(text: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') quoted = !quoted;
    if (!quoted && (c === "#" || (c === "/" && text[i + 1] === "/"))) {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
      continue;
    }
    out += c;
  }
  return out;
}

/** A key file left out, and why. */
export interface KeyFileProblem {
  file: string;
  error: string;
}

/**
 * Every key in `dir` (`<ref>.key` files), and the files left out with the
 * reason; no directory is no keys.
 */
export async function readTsigKeys(
  dir: string,
): Promise<{ keys: NamedTsigKey[]; problems: KeyFileProblem[] }> {
  const keys: NamedTsigKey[] = [];
  const problems: KeyFileProblem[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { keys, problems };
    throw error;
  }
  const names = new Set<string>();
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isFile || !entry.name.endsWith(".key")) continue;
    const ref = entry.name.slice(0, -".key".length);
    const file = join(dir, entry.name);
    if (!REF.test(ref)) {
      problems.push({
        file,
        error:
          "the name before .key must be lowercase letters, digits, - and . (zones refer to the key by it)",
      });
      continue;
    }
    try {
      const key = parseTsigKeyFile(await Deno.readTextFile(file), ref);
      if (names.has(key.name)) {
        throw new Error(`another file already holds a key named ${key.name}`);
      }
      names.add(key.name);
      keys.push(key);
    } catch (error) {
      problems.push({
        file,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return { keys, problems };
}

/** How often the key directory is read again. */
export const TSIG_KEY_POLL_MS = 30_000;

/**
 * Reads the keys now, gives them to `onChange`, and again whenever they
 * change (read every `pollMs`); each file left out is logged once, when
 * it is first found wanting.
 */
export async function watchTsigKeys(
  dir: string,
  logger: Logger,
  onChange: (keys: NamedTsigKey[]) => void,
  pollMs = TSIG_KEY_POLL_MS,
): Promise<Disposable> {
  let last = "";
  let logged = new Set<string>();
  const read = async () => {
    let found;
    try {
      found = await readTsigKeys(dir);
    } catch (error) {
      logger.warn("Cannot read the TSIG key directory", { dir, error });
      return;
    }
    const problems = new Set<string>();
    for (const problem of found.problems) {
      const key = `${problem.file}\n${problem.error}`;
      problems.add(key);
      if (!logged.has(key)) {
        logger.warn("TSIG key file left out", { ...problem });
      }
    }
    logged = problems;
    const text = JSON.stringify(
      found.keys.map((k) => [k.ref, k.name, k.algorithm, k.secret.toBase64()]),
    );
    if (text === last) return;
    last = text;
    onChange(found.keys);
  };
  await read();
  const timer = setInterval(read, pollMs);
  return { [Symbol.dispose]: () => clearInterval(timer) };
}
