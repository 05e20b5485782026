/**
 * Limits on failed logins, against password guessing. Two counts, each
 * blocking on its own:
 *
 * - per client address (IPv6 per /64): 5 failures → blocked 5 minutes.
 *   Stops one source trying many user names (password spraying);
 * - per user name: 10 failures → blocked 15 minutes. Stops many sources
 *   guessing one account's password.
 *
 * Failures count within a sliding 15-minute window (older ones are
 * forgotten) and until a success clears them; a block clears the count it
 * ended, so after it the next failures start from zero. That lets through
 * at most about 60 guesses an hour per address and 40 per user name.
 *
 * A success clears the user's failures, and the address's failures for
 * that user name only: a person who mistyped their own password starts
 * afresh, but an attacker with one valid account cannot reset the
 * address count between sprays by logging in.
 *
 * How the API uses it:
 *
 * 1. `check` first, before any password hashing: a blocked client costs
 *    nothing; answer 429 with Retry-After.
 * 2. `failed` for every failed login, whether or not the user exists.
 *    Counting only existing users would let the block tell who exists.
 * 3. `succeeded` after a successful one.
 *
 * Memory is bounded: at most `maxTracked` addresses and as many user
 * names, the least recently failed dropped first, so a flood of made-up
 * user names cannot grow it. The counts live in this process; several
 * nodes each count on their own.
 */
import { clientAddressKey } from "./client_address.ts";

/** How failures are counted and blocked. */
export interface LoginLimits {
  /** Milliseconds in which failures are counted. */
  windowMs: number;
  /** Failures from one address (or IPv6 /64) that block it. */
  addressFailures: number;
  /** Milliseconds an address stays blocked. */
  addressBlockMs: number;
  /** Failures for one user name that block it. */
  userFailures: number;
  /** Milliseconds a user name stays blocked. */
  userBlockMs: number;
  /** Most addresses, and most user names, tracked at once. */
  maxTracked: number;
}

const MINUTE = 60_000;

/** The limits the API uses. */
export const DEFAULT_LOGIN_LIMITS: Readonly<LoginLimits> = Object.freeze({
  windowMs: 15 * MINUTE,
  addressFailures: 5,
  addressBlockMs: 5 * MINUTE,
  userFailures: 10,
  userBlockMs: 15 * MINUTE,
  maxTracked: 10_000,
});

/** A login refused before its password is looked at. */
export interface LoginBlock {
  /** Seconds until the block ends (at least 1), for Retry-After. */
  retryAfterSeconds: number;
  /** Which count blocks it; when both do, the one that ends later. */
  reason: "address" | "user";
}

/** Longest user name kept as a key; longer ones are counted by their start. */
const MAX_USER_KEY_LENGTH = 256;

interface Tally {
  /** Times of failures in the window, oldest first, and the user names they were for. */
  failures: { at: number; user: string }[];
  /** When the block ends; 0 when not blocked. */
  blockedUntil: number;
}

/** Failed-login counts per address and per user name, with an injected clock. */
export class LoginLimiter {
  readonly #limits: LoginLimits;
  readonly #now: () => number;
  // Map order is least recently failed first: the first entry is evicted.
  readonly #addresses = new Map<string, Tally>();
  readonly #users = new Map<string, Tally>();

  constructor(
    options: { now?: () => number; limits?: Partial<LoginLimits> } = {},
  ) {
    this.#now = options.now ?? Date.now;
    this.#limits = { ...DEFAULT_LOGIN_LIMITS, ...options.limits };
  }

  /** Addresses tracked now (blocked, or with failures in the window). */
  get trackedAddresses(): number {
    return this.#addresses.size;
  }

  /** User names tracked now. */
  get trackedUsers(): number {
    return this.#users.size;
  }

  /** The block on a login by `user` from `address`, or undefined when it may go ahead. */
  check(address: string, user: string): LoginBlock | undefined {
    const now = this.#now();
    const byAddress = this.#blockedUntil(
      this.#addresses,
      clientAddressKey(address),
      now,
    );
    const byUser = this.#blockedUntil(this.#users, userKey(user), now);
    if (byAddress <= now && byUser <= now) return undefined;
    const [until, reason] = byAddress >= byUser
      ? [byAddress, "address" as const]
      : [byUser, "user" as const];
    return {
      retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)),
      reason,
    };
  }

  /** Counts a failed login by `user` from `address`, blocking either when it reaches its limit. */
  failed(address: string, user: string): void {
    const now = this.#now();
    const name = userKey(user);
    this.#count(
      this.#addresses,
      clientAddressKey(address),
      name,
      now,
      this.#limits.addressFailures,
      this.#limits.addressBlockMs,
    );
    this.#count(
      this.#users,
      name,
      name,
      now,
      this.#limits.userFailures,
      this.#limits.userBlockMs,
    );
  }

  /** Clears the failures of `user`, everywhere and from `address`, after a successful login. */
  succeeded(address: string, user: string): void {
    const now = this.#now();
    const name = userKey(user);
    this.#users.delete(name);
    const key = clientAddressKey(address);
    const tally = this.#addresses.get(key);
    if (!tally) return;
    tally.failures = tally.failures.filter((f) => f.user !== name);
    if (tally.failures.length === 0 && tally.blockedUntil <= now) {
      this.#addresses.delete(key);
    }
  }

  /** When `key`'s block ends (0 if none); forgets an entry with nothing left to count. */
  #blockedUntil(map: Map<string, Tally>, key: string, now: number): number {
    const tally = map.get(key);
    if (!tally) return 0;
    this.#forgetOld(tally, now);
    if (tally.blockedUntil <= now && tally.failures.length === 0) {
      map.delete(key);
    }
    return tally.blockedUntil;
  }

  #count(
    map: Map<string, Tally>,
    key: string,
    user: string,
    now: number,
    limit: number,
    blockMs: number,
  ): void {
    const tally = map.get(key) ?? { failures: [], blockedUntil: 0 };
    map.delete(key); // re-added below, as the most recent
    this.#forgetOld(tally, now);
    tally.failures.push({ at: now, user });
    if (tally.failures.length >= limit) {
      tally.blockedUntil = Math.max(tally.blockedUntil, now + blockMs);
      tally.failures = [];
    }
    map.set(key, tally);
    while (map.size > this.#limits.maxTracked) {
      map.delete(map.keys().next().value!);
    }
  }

  #forgetOld(tally: Tally, now: number): void {
    const since = now - this.#limits.windowMs;
    const first = tally.failures.findIndex((f) => f.at > since);
    if (first !== 0) {
      tally.failures = first < 0 ? [] : tally.failures.slice(first);
    }
    if (tally.blockedUntil <= now) tally.blockedUntil = 0;
  }
}

/**
 * The key a user name is counted under: NFKC and lower case, so "Admin"
 * and "admin" share a count (at worst two real users share one), and cut
 * to a length, so a huge name costs no memory.
 */
function userKey(user: string): string {
  return user.slice(0, MAX_USER_KEY_LENGTH * 2).normalize("NFKC")
    .toLowerCase().slice(0, MAX_USER_KEY_LENGTH);
}
