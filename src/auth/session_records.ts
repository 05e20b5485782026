/**
 * What the server keeps of a user's sessions, so that the user can see
 * them and end one: the cookie stays the session (sessions.ts), and its id
 * must be in the user's record for it to open. Ending a session takes its
 * id out. The record is one runtime value per user (`sessions.<user>`, a
 * hash of the name when the name is too long for a key), written at login
 * and when a session ends, so it reaches every node and survives a
 * restart; at most MAX_SESSIONS_PER_USER ids are kept, and a login beyond
 * that ends the oldest session.
 *
 * Last seen is not written on use (each runtime write is an audit row):
 * this node remembers when it last saw each session, and a listing shows
 * the later of that and what the record holds; the next write stores it.
 */
import type { Store } from "../store/store.ts";
import { RUNTIME_VALUE_MAX_LENGTH } from "../store/runtime_values.ts";
import type { SessionTimes } from "./sessions.ts";

/** Sessions kept per user; a login beyond them ends the oldest. */
export const MAX_SESSIONS_PER_USER = 10;
/** A user agent is kept this long at most: the record must stay small. */
const USER_AGENT_MAX_LENGTH = 160;
/** The longest user name the key holds as it is (a key is 63 characters). */
const KEY_NAME_MAX_LENGTH = 63 - "sessions.".length;
/** Sessions whose last sighting this node remembers, before old ones go. */
const SEEN_MAX = 10_000;

/** One session as the record keeps it. */
export interface SessionRecord {
  id: string;
  /** Login time (ms since the epoch). */
  created: number;
  /** Last seen (ms). */
  seen: number;
  /** The client's address at login. */
  address: string;
  userAgent?: string;
}

type RuntimeStore = Pick<Store, "getRuntime" | "setRuntime">;

/** The runtime key of `user`'s record. */
export async function sessionsKey(user: string): Promise<string> {
  if (user.length <= KEY_NAME_MAX_LENGTH && /^[a-z0-9.-]+$/.test(user)) {
    return `sessions.${user}`;
  }
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(user),
  );
  const hex = [...new Uint8Array(digest)].map((b) =>
    b.toString(16).padStart(2, "0")
  ).join("");
  return `sessions.${hex.slice(0, 40)}`;
}

/** The sessions `user`'s record holds, as stored. */
export async function recordedSessions(
  store: RuntimeStore,
  user: string,
): Promise<SessionRecord[]> {
  const stored = await store.getRuntime(await sessionsKey(user));
  if (stored === undefined) return [];
  try {
    const value = JSON.parse(stored.value) as {
      user?: unknown;
      sessions?: unknown;
    };
    // A hashed key could in theory be another name's: the record says whose.
    if (value.user !== user || !Array.isArray(value.sessions)) return [];
    return value.sessions.filter(isRecord);
  } catch {
    return [];
  }
}

/** Whether `user`'s record holds the session `id`. */
export async function sessionRecorded(
  store: RuntimeStore,
  user: string,
  id: string,
): Promise<boolean> {
  return (await recordedSessions(store, user)).some((s) => s.id === id);
}

/** Who changes a record, for its audit row. */
export interface RecordOrigin {
  actor: string;
  authorization?: string;
  client?: string;
}

/** The records of every user, with what this node saw of them. */
export class SessionRecords {
  readonly #store: RuntimeStore;
  readonly #times: SessionTimes;
  /** Session id → when this node last saw it (ms). */
  readonly #seen = new Map<string, number>();
  /** One write at a time per user: a record is read, changed and written. */
  readonly #writing = new Map<string, Promise<unknown>>();

  constructor(store: RuntimeStore, times: SessionTimes) {
    this.#store = store;
    this.#times = times;
  }

  /** The session `id` was used at `now`. */
  saw(id: string, now: number): void {
    this.#seen.delete(id);
    this.#seen.set(id, now);
    if (this.#seen.size > SEEN_MAX) {
      // Insertion order is last-seen order: the first are the stalest.
      const [stalest] = this.#seen.keys();
      this.#seen.delete(stalest!);
    }
  }

  /**
   * `user`'s sessions that still hold at `now` (none issued before
   * `validAfter`, a time in ms), newest first, with the last sighting.
   */
  async list(
    user: string,
    now: number,
    validAfter?: number,
  ): Promise<SessionRecord[]> {
    return this.#live(
      await recordedSessions(this.#store, user),
      now,
      validAfter,
    )
      .sort((a, b) => b.created - a.created);
  }

  /** Adds a new session to `user`'s record. */
  add(
    user: string,
    session: SessionRecord,
    origin: RecordOrigin,
    validAfter?: number,
  ): Promise<void> {
    const added: SessionRecord = {
      id: session.id,
      created: session.created,
      seen: session.seen,
      address: session.address.slice(0, 64),
    };
    if (session.userAgent) {
      added.userAgent = session.userAgent.slice(0, USER_AGENT_MAX_LENGTH);
    }
    return this.#change(
      user,
      origin,
      (live) =>
        [added, ...live.filter((s) => s.id !== added.id)]
          .sort((a, b) => b.created - a.created)
          .slice(0, MAX_SESSIONS_PER_USER),
      session.created,
      validAfter,
    );
  }

  /** Ends the sessions of `user` that `ends` picks; resolves to how many ended. */
  async end(
    user: string,
    ends: (s: SessionRecord) => boolean,
    origin: RecordOrigin,
    now: number,
  ): Promise<number> {
    let ended = 0;
    await this.#change(user, origin, (live) => {
      const kept = live.filter((s) => !ends(s));
      ended = live.length - kept.length;
      return kept;
    }, now);
    return ended;
  }

  /** Drops `user`'s record (the user is gone). */
  async forget(user: string, origin: RecordOrigin): Promise<void> {
    const key = await sessionsKey(user);
    await this.#serial(user, async () => {
      if (await this.#store.getRuntime(key) !== undefined) {
        await this.#store.setRuntime(key, null, origin);
      }
    });
  }

  #change(
    user: string,
    origin: RecordOrigin,
    change: (live: SessionRecord[]) => SessionRecord[],
    now: number,
    validAfter?: number,
  ): Promise<void> {
    return this.#serial(user, async () => {
      const key = await sessionsKey(user);
      const stored = await recordedSessions(this.#store, user);
      const before = JSON.stringify(stored);
      const sessions = change(this.#live(stored, now, validAfter));
      // A user agent full of escapes could overflow the value: oldest go.
      let value = JSON.stringify({ user, sessions });
      while (value.length > RUNTIME_VALUE_MAX_LENGTH && sessions.length > 1) {
        sessions.pop();
        value = JSON.stringify({ user, sessions });
      }
      if (sessions.length === 0) {
        if (stored.length > 0) await this.#store.setRuntime(key, null, origin);
      } else if (JSON.stringify(sessions) !== before) {
        await this.#store.setRuntime(key, value, origin);
      }
      for (const s of stored) {
        if (!sessions.some((k) => k.id === s.id)) this.#seen.delete(s.id);
      }
    });
  }

  /** `sessions` that still hold, with this node's last sightings. */
  #live(
    sessions: SessionRecord[],
    now: number,
    validAfter?: number,
  ): SessionRecord[] {
    return sessions
      .map((s) => ({ ...s, seen: Math.max(s.seen, this.#seen.get(s.id) ?? 0) }))
      .filter((s) =>
        now - s.seen <= this.#times.idleMs &&
        now - s.created <= this.#times.lifetimeMs &&
        (validAfter === undefined || s.created >= validAfter)
      );
  }

  #serial<T>(user: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#writing.get(user) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(work);
    this.#writing.set(user, next);
    const done = () => {
      if (this.#writing.get(user) === next) this.#writing.delete(user);
    };
    next.then(done, done);
    return next;
  }
}

function isRecord(value: unknown): value is SessionRecord {
  if (typeof value !== "object" || value === null) return false;
  const s = value as Partial<SessionRecord>;
  return typeof s.id === "string" && typeof s.created === "number" &&
    typeof s.seen === "number" && typeof s.address === "string" &&
    (s.userAgent === undefined || typeof s.userAgent === "string");
}
