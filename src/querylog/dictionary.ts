/**
 * One dictionary table (names, clients, answers, or one kind of label) seen
 * from the writer: text → id, with a bounded in-memory cache so a repeated
 * string costs one Map lookup and no SQL. Runs inside the writer's batch
 * transaction; after a rollback or a retention sweep, reset() forgets
 * everything the database may no longer hold.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

/** The dictionary tables of schema.ts. */
export type DictionaryTable = "names" | "clients" | "answers" | "labels";

/**
 * How stale `last_used` may get (minutes) before the writer writes it again.
 * Retention keeps this much slack, so an entry in use is never removed.
 */
export const LAST_USED_SLACK_MINUTES = 60;

interface Entry {
  id: number;
  /** The last_used value known to be stored. */
  used: number;
}

export class Dictionary {
  readonly #half: number;
  #young = new Map<string, Entry>();
  #old = new Map<string, Entry>();
  readonly #upsert: StatementSync;
  readonly #bump: StatementSync;
  #bumps: number[] = [];

  /**
   * @param maxCached how many strings the cache holds at most (two
   * generations of half that: a cheap approximation of LRU)
   */
  constructor(
    db: DatabaseSync,
    readonly table: DictionaryTable,
    readonly kind: string | undefined,
    maxCached: number,
  ) {
    this.#half = Math.max(1, Math.floor(maxCached / 2));
    const keep = "last_used = max(last_used, excluded.last_used)";
    this.#upsert = kind === undefined
      ? db.prepare(
        `INSERT INTO ${table} (text, last_used) VALUES (?, ?)
         ON CONFLICT (text) DO UPDATE SET ${keep} RETURNING id, last_used`,
      )
      : db.prepare(
        `INSERT INTO ${table} (kind, text, last_used) VALUES ('${kind}', ?, ?)
         ON CONFLICT (kind, text) DO UPDATE SET ${keep} RETURNING id, last_used`,
      );
    this.#bump = db.prepare(
      `UPDATE ${table} SET last_used = max(last_used, ?) WHERE id = ?`,
    );
  }

  /** The id of `text`, adding it when new; `minute` is when it was used. */
  idOf(text: string, minute: number): number {
    let entry = this.#young.get(text);
    if (entry === undefined) {
      entry = this.#old.get(text) ?? this.#fetch(text, minute);
      this.#remember(text, entry);
    }
    if (minute > entry.used + LAST_USED_SLACK_MINUTES) {
      entry.used = minute;
      this.#bumps.push(entry.id, minute);
    }
    return entry.id;
  }

  /** Writes the last_used bumps collected since the last call. */
  writeBumps(): void {
    const bumps = this.#bumps;
    for (let i = 0; i < bumps.length; i += 2) {
      this.#bump.run(bumps[i + 1]!, bumps[i]!);
    }
    this.#bumps = [];
  }

  /** Forgets every cached id and pending bump. */
  reset(): void {
    this.#young.clear();
    this.#old.clear();
    this.#bumps = [];
  }

  /** How many strings are cached now. */
  get cached(): number {
    return this.#young.size + this.#old.size;
  }

  #fetch(text: string, minute: number): Entry {
    const row = this.#upsert.get(text, minute)!;
    return { id: Number(row.id), used: Number(row.last_used) };
  }

  #remember(text: string, entry: Entry): void {
    if (this.#young.size >= this.#half) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(text, entry);
  }
}
