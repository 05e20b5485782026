/**
 * INSERTs of many rows per statement. Each statement call from JavaScript
 * into node:sqlite costs about as much as SQLite's own work for one row, so
 * the writer sends rows 64 at a time: measured 6.1 → 3.6 µs per events row.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";

const ROWS_PER_STATEMENT = 64;

export class MultiRowInsert {
  readonly #db: DatabaseSync;
  readonly #width: number;
  readonly #sql: (rows: number) => string;
  readonly #statements = new Map<number, StatementSync>();
  #values: SQLInputValue[] = [];

  /**
   * @param head e.g. "INSERT INTO t (a, b) VALUES"
   * @param width values per row
   * @param tail e.g. an ON CONFLICT clause
   */
  constructor(db: DatabaseSync, head: string, width: number, tail = "") {
    this.#db = db;
    this.#width = width;
    const row = `(${Array(width).fill("?").join(", ")})`;
    this.#sql = (rows) => `${head} ${Array(rows).fill(row).join(", ")} ${tail}`;
  }

  /** Queues one row (`width` values); runs a statement when enough are queued. */
  add(...values: SQLInputValue[]): void {
    for (const v of values) this.#values.push(v);
    if (this.#values.length >= ROWS_PER_STATEMENT * this.#width) this.flush();
  }

  /** Runs what is queued. */
  flush(): void {
    const rows = this.#values.length / this.#width;
    if (rows === 0) return;
    this.#statement(rows).run(...this.#values);
    this.#values = [];
  }

  /** Forgets queued rows (after a rollback). */
  clear(): void {
    this.#values = [];
  }

  #statement(rows: number): StatementSync {
    let statement = this.#statements.get(rows);
    if (statement === undefined) {
      statement = this.#db.prepare(this.#sql(rows));
      this.#statements.set(rows, statement);
    }
    return statement;
  }
}
