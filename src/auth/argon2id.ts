/**
 * Argon2id itself (hash-wasm) and the PHC strings it is stored as: what
 * password_worker.ts runs off the main thread, and what password.ts checks
 * before it queues anything. Callers pass passwords already checked for
 * length and NFKC-normalised (password.ts).
 */
import { timingSafeEqual } from "node:crypto";
import { argon2id } from "hash-wasm";

/** The Argon2id parameters of every new hash. */
export const ARGON2_PARAMETERS = Object.freeze({
  /** KiB of memory (19 MiB). */
  memorySize: 19_456,
  iterations: 2,
  parallelism: 1,
  hashLength: 32,
  saltLength: 16,
});

/**
 * The most one verification may cost, whatever a stored hash asks for: a
 * hash edited in the database must not make each login take gigabytes.
 */
const VERIFY_LIMITS = Object.freeze({
  memorySize: 65_536,
  iterations: 10,
  parallelism: 4,
});

/** The parameters a PHC string names, with its salt and hash lengths in bytes. */
export interface Argon2Parameters {
  memorySize: number;
  iterations: number;
  parallelism: number;
  saltLength: number;
  hashLength: number;
}

const PHC =
  /^\$argon2id\$v=19\$m=(\d{1,10}),t=(\d{1,10}),p=(\d{1,10})\$([A-Za-z0-9+/]{11,88})\$([A-Za-z0-9+/]{16,88})$/;

/** The parameters of an Argon2id PHC string, or undefined. */
export function argon2Parameters(
  encoded: string,
): Argon2Parameters | undefined {
  const m = PHC.exec(encoded);
  if (!m) return undefined;
  const bytes = (b64: string) => Math.floor((b64.length * 3) / 4);
  return {
    memorySize: Number(m[1]),
    iterations: Number(m[2]),
    parallelism: Number(m[3]),
    saltLength: bytes(m[4]!),
    hashLength: bytes(m[5]!),
  };
}

/** A stored hash taken apart for verification. */
interface Verifiable {
  memorySize: number;
  iterations: number;
  parallelism: number;
  salt: Uint8Array;
  hash: Uint8Array;
}

/**
 * `encoded` taken apart, once it is known to be an Argon2id (v=19) PHC
 * string within VERIFY_LIMITS. Cheap: password.ts calls it before queueing
 * a verification, the worker again before hashing.
 *
 * @throws {Error} when `encoded` is not an Argon2id hash kudurru verifies
 */
export function verifiable(encoded: string): Verifiable {
  const m = PHC.exec(encoded);
  const salt = m ? base64Bytes(m[4]!) : undefined;
  const hash = m ? base64Bytes(m[5]!) : undefined;
  if (salt === undefined || hash === undefined) {
    throw new Error(
      "Cannot verify the password: the stored hash is not an Argon2id (v=19) PHC string",
    );
  }
  const parameters = argon2Parameters(encoded)!;
  const over = overLimits(parameters);
  if (over !== undefined) {
    throw new Error(
      `Cannot verify the password: the stored hash asks for ${over}; reset the password`,
    );
  }
  const { memorySize, iterations, parallelism } = parameters;
  return { memorySize, iterations, parallelism, salt, hash };
}

/**
 * The PHC string of the (normalised) `password` under ARGON2_PARAMETERS
 * with a fresh 16-byte salt. Runs on the calling thread.
 */
export async function argon2idHash(password: string): Promise<string> {
  const { saltLength, ...parameters } = ARGON2_PARAMETERS;
  return await argon2id({
    ...parameters,
    password,
    salt: crypto.getRandomValues(new Uint8Array(saltLength)),
    outputType: "encoded",
  });
}

/**
 * True when the (normalised) `password` hashes to `encoded`'s hash under
 * its own salt and parameters; the two hashes are compared in constant
 * time. Runs on the calling thread.
 *
 * @throws {Error} as `verifiable` does
 */
export async function argon2idMatches(
  password: string,
  encoded: string,
): Promise<boolean> {
  const { salt, hash, ...parameters } = verifiable(encoded);
  const computed = await argon2id({
    ...parameters,
    password,
    salt,
    hashLength: hash.length,
    outputType: "binary",
  });
  return computed.length === hash.length && timingSafeEqual(computed, hash);
}

/** hash-wasm's Argon2 module exports this; its BLAKE2b modules do not. */
const ARGON2_EXPORT = "Hash_SetMemorySize";

/** Argon2 instances kept by reuseArgon2Instances, by module. */
const argon2Instances = new Map<WebAssembly.Module, WebAssembly.Instance>();

/**
 * Makes hash-wasm hash with one Argon2 WebAssembly instance in this
 * isolate, again and again, instead of a new one per hash: a new instance
 * is new WebAssembly memory (19 MiB mapped, faulted in page by page and
 * unmapped after GC), and in a process with several threads those
 * mappings serialise in the kernel. Measured on a 2-core VM: 49 ms per
 * hash alone and 120 ms each with two threads hashing at once (under 17
 * hashes/s in all), against 29 ms and 29-30 ms (66/s) with one instance
 * per thread.
 *
 * hash-wasm's Argon2 counts on memory that starts zeroed, as a new
 * instance's does (with blocks left by an earlier hash it computes another
 * hash): the kept instance's blocks are zeroed each time hash-wasm asks
 * for it, at the start of every hash (~0.5 ms for 19 MiB).
 *
 * For a Worker that runs one hash at a time (password_worker.ts): two
 * hashes at once would share the instance's memory. hash-wasm instantiates
 * with `WebAssembly.instantiate(module, {})`; only its Argon2 module is
 * kept, the small BLAKE2b instances are made anew as before.
 */
export function reuseArgon2Instances(): void {
  const instantiate = WebAssembly.instantiate;
  const pending = new Map<WebAssembly.Module, Promise<WebAssembly.Instance>>();
  const reusing = async (
    source: unknown,
    imports?: WebAssembly.Imports,
  ): Promise<unknown> => {
    if (
      source instanceof WebAssembly.Module &&
      (imports === undefined || Object.keys(imports).length === 0) &&
      WebAssembly.Module.exports(source).some((e) => e.name === ARGON2_EXPORT)
    ) {
      let instance = pending.get(source);
      if (instance === undefined) {
        instance = instantiate(source).then((made) => {
          argon2Instances.set(source, made);
          return made;
        });
        pending.set(source, instance);
      }
      const made = await instance;
      wipe(made);
      return made;
    }
    return await (instantiate as (s: unknown, i?: unknown) => Promise<unknown>)(
      source,
      imports,
    );
  };
  WebAssembly.instantiate = reusing as typeof WebAssembly.instantiate;
}

/**
 * Zeroes the Argon2 blocks the kept instances hold, what the last hash
 * left there (derived from its password), so they do not stay in memory
 * while the Worker waits for the next job.
 */
export function wipeArgon2Memory(): void {
  for (const instance of argon2Instances.values()) wipe(instance);
}

function wipe(instance: WebAssembly.Instance): void {
  const { memory, Hash_GetBuffer } = instance.exports as {
    memory: WebAssembly.Memory;
    Hash_GetBuffer(): number;
  };
  const blocks = Hash_GetBuffer(); // may grow the memory: before `.buffer`
  new Uint8Array(memory.buffer, blocks).fill(0);
}

/** Unpadded standard base64 (as in PHC strings) as bytes, or undefined. */
function base64Bytes(text: string): Uint8Array | undefined {
  if (text.length % 4 === 1) return undefined; // no byte string has this length
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** What a stored hash asks for beyond VERIFY_LIMITS, or undefined. */
function overLimits(p: Argon2Parameters): string | undefined {
  if (p.memorySize > VERIFY_LIMITS.memorySize) {
    return `${p.memorySize} KiB of memory (at most ${VERIFY_LIMITS.memorySize})`;
  }
  if (p.iterations > VERIFY_LIMITS.iterations) {
    return `${p.iterations} passes (at most ${VERIFY_LIMITS.iterations})`;
  }
  if (p.parallelism > VERIFY_LIMITS.parallelism) {
    return `${p.parallelism} lanes (at most ${VERIFY_LIMITS.parallelism})`;
  }
  if (
    p.iterations < 1 || p.parallelism < 1 || p.memorySize < 8 * p.parallelism
  ) {
    return "parameters Argon2 does not allow";
  }
  return undefined;
}
