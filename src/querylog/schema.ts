/**
 * The layout of querylog.db (one per node: events and rollups):
 * dictionary tables so every repeated string is stored once, a compact
 * `events` table, and per-minute rollups that the dashboard reads instead of
 * raw events. README.md explains the choices and what each byte costs.
 */
import type { DatabaseSync } from "node:sqlite";
import type { Migration } from "../sqlite/migrations.ts";
import { STATUSES } from "../pipeline/status.ts";
import { STAGE_ORDER } from "../pipeline/stage.ts";
import { COLUMNS, encodeChunk } from "./chunk_codec.ts";
import { MAX_CHUNK_EVENTS } from "./event_chunks.ts";

/** The layout version of querylog.db (its own, apart from state.db's). */
export const QUERYLOG_SCHEMA_VERSION = 3;

/**
 * Every dictionary has the same shape: `last_used` is the newest minute
 * (epoch minutes) in which anything referred to the entry, give or take the
 * hour the writer waits between bumps; retention removes entries nothing
 * can refer to any more.
 */
const dictionary = (table: string) => `
CREATE TABLE ${table} (
  id        INTEGER PRIMARY KEY,
  text      TEXT NOT NULL UNIQUE,
  last_used INTEGER NOT NULL
);`;

const SCHEMA_V1 = `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
${dictionary("names")}
${dictionary("clients")}
${dictionary("answers")}
-- Small vocabularies: node, status, stage, transport, upstream, list, rule, groups.
CREATE TABLE labels (
  id        INTEGER PRIMARY KEY,
  kind      TEXT NOT NULL,
  text      TEXT NOT NULL,
  last_used INTEGER NOT NULL,
  UNIQUE (kind, text)
);
-- One row per answered query; id is the write order, time the arrival (ms).
-- No secondary index: the rollups below say which minutes to read, and
-- event_minutes turns a minute into a range of ids.
CREATE TABLE events (
  id          INTEGER PRIMARY KEY,
  time        INTEGER NOT NULL,
  node        INTEGER NOT NULL,
  client      INTEGER NOT NULL,
  port        INTEGER NOT NULL,
  transport   INTEGER NOT NULL,
  qname       INTEGER NOT NULL,
  qtype       INTEGER NOT NULL,
  qclass      INTEGER NOT NULL,
  rcode       INTEGER NOT NULL,
  status      INTEGER NOT NULL,
  stage       INTEGER NOT NULL,
  upstream    INTEGER,
  list        INTEGER,
  rule        INTEGER,
  flags       INTEGER NOT NULL,
  answer      INTEGER,
  size        INTEGER NOT NULL,
  duration_us INTEGER NOT NULL,
  groups      INTEGER
);
-- The smallest and largest event id whose time falls in each minute.
CREATE TABLE event_minutes (
  minute   INTEGER PRIMARY KEY,
  first_id INTEGER NOT NULL,
  last_id  INTEGER NOT NULL
);
CREATE TABLE status_minutes (
  minute      INTEGER NOT NULL,
  status      INTEGER NOT NULL,
  queries     INTEGER NOT NULL,
  duration_us INTEGER NOT NULL,
  PRIMARY KEY (minute, status)
) WITHOUT ROWID;
CREATE TABLE client_minutes (
  minute  INTEGER NOT NULL,
  client  INTEGER NOT NULL,
  queries INTEGER NOT NULL,
  blocked INTEGER NOT NULL,
  PRIMARY KEY (minute, client)
) WITHOUT ROWID;
CREATE INDEX client_minutes_by_client ON client_minutes (client, minute);
CREATE TABLE domain_minutes (
  minute  INTEGER NOT NULL,
  name    INTEGER NOT NULL,
  queries INTEGER NOT NULL,
  blocked INTEGER NOT NULL,
  PRIMARY KEY (minute, name)
) WITHOUT ROWID;
CREATE INDEX domain_minutes_by_name ON domain_minutes (name, minute);
CREATE TABLE domain_hours (
  hour    INTEGER NOT NULL,
  name    INTEGER NOT NULL,
  queries INTEGER NOT NULL,
  blocked INTEGER NOT NULL,
  PRIMARY KEY (hour, name)
) WITHOUT ROWID;
-- No (name, hour) index: it would cost ~5 bytes per event; a search for a
-- name looks its hours up by primary key instead (search_filters.ts).
CREATE TABLE upstream_minutes (
  minute      INTEGER NOT NULL,
  upstream    INTEGER NOT NULL,
  queries     INTEGER NOT NULL,
  errors      INTEGER NOT NULL,
  duration_us INTEGER NOT NULL,
  PRIMARY KEY (minute, upstream)
) WITHOUT ROWID;
-- For people with the sqlite3 shell: events with their strings.
CREATE VIEW events_text AS
SELECT e.id, strftime('%Y-%m-%dT%H:%M:%fZ', e.time / 1000.0, 'unixepoch') AS time,
  nd.text AS node, c.text AS client, e.port, tr.text AS transport, n.text AS qname,
  e.qtype, e.qclass, e.rcode, st.text AS status, sg.text AS stage,
  u.text AS upstream, l.text AS list, r.text AS rule, e.flags,
  a.text AS answer, e.size, e.duration_us, g.text AS groups
FROM events e
LEFT JOIN labels nd ON nd.id = e.node
LEFT JOIN clients c ON c.id = e.client
LEFT JOIN labels tr ON tr.id = e.transport
LEFT JOIN names n ON n.id = e.qname
LEFT JOIN labels st ON st.id = e.status
LEFT JOIN labels sg ON sg.id = e.stage
LEFT JOIN labels u ON u.id = e.upstream
LEFT JOIN labels l ON l.id = e.list
LEFT JOIN labels r ON r.id = e.rule
LEFT JOIN answers a ON a.id = e.answer
LEFT JOIN labels g ON g.id = e.groups;
`;

/** Transports named today and those the listeners will add (seeded first). */
export const KNOWN_TRANSPORTS = ["udp", "tcp", "dot", "doh", "doq", "doh3"];

/**
 * Seeds the labels every event uses so their ids stay below 128 (one byte
 * in a row): statuses, stages, transports. Others get ids as they come.
 */
function seedLabels(db: DatabaseSync): void {
  const insert = db.prepare(
    "INSERT INTO labels (kind, text, last_used) VALUES (?, ?, 0)",
  );
  for (const status of STATUSES) insert.run("status", status);
  for (const stage of [...STAGE_ORDER, "chain"]) insert.run("stage", stage);
  for (const transport of KNOWN_TRANSPORTS) insert.run("transport", transport);
}

/**
 * v2: raw events move from one row each into chunks (event_chunks.ts):
 * writing a batch is one INSERT, and an event takes ~25 bytes instead of
 * ~45. Ids, times and every value are kept; the events_text view goes
 * with the table it read (`kudurru querylog` shows events with text).
 */
const SCHEMA_V2 = `
CREATE TABLE event_chunks (
  first_id INTEGER PRIMARY KEY,
  last_id  INTEGER NOT NULL,
  data     BLOB NOT NULL
);`;

/**
 * v3: each chunk's span of event times (event_chunks.ts), so that the
 * newest page of a busy minute decodes the few chunks that can hold it
 * rather than all of the minute's. Chunks written before have no span and
 * are read as before, until retention takes them.
 */
const SCHEMA_V3 = `
CREATE TABLE event_chunk_times (
  first_id INTEGER PRIMARY KEY,
  min_time INTEGER NOT NULL,
  max_time INTEGER NOT NULL
);`;

const V1_EVENT_COLUMNS = `time, node, client, port, transport, qname, qtype,
  qclass, rcode, status, stage, coalesce(upstream, 0), coalesce(list, 0),
  coalesce(rule, 0), flags, coalesce(answer, 0), size, duration_us,
  coalesce(groups, 0)`;

/** Moves every v1 events row into chunks of consecutive ids. */
function chunkV1Events(db: DatabaseSync): void {
  const insert = db.prepare(
    "INSERT INTO event_chunks (first_id, last_id, data) VALUES (?, ?, ?)",
  );
  const rows = new Float64Array(MAX_CHUNK_EVENTS * COLUMNS);
  let first = 0;
  let count = 0;
  const flush = () => {
    if (count > 0) {
      insert.run(first, first + count - 1, encodeChunk(rows, count));
    }
    count = 0;
  };
  const select = db.prepare(
    `SELECT id, ${V1_EVENT_COLUMNS} FROM events ORDER BY id`,
  );
  for (const record of select.iterate()) {
    const row = Object.values(record);
    const id = Number(row[0]);
    if (count > 0 && (id !== first + count || count === MAX_CHUNK_EVENTS)) {
      flush();
    }
    if (count === 0) first = id;
    for (let c = 0; c < COLUMNS; c++) {
      rows[count * COLUMNS + c] = Number(row[c + 1]);
    }
    count++;
  }
  flush();
}

/** Every querylog.db schema version in order; append, never edit a shipped step. */
export const QUERYLOG_MIGRATIONS: readonly Migration[] = [{
  to: 1,
  description: "dictionaries, events, event_minutes and rollups",
  up(db) {
    db.exec(SCHEMA_V1);
    seedLabels(db);
    const meta = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)");
    meta.run("next_event_id", "1");
    // See domain_hours.ts.
    meta.run("domain_hours_through", "0");
  },
}, {
  to: 2,
  description: "raw events in chunks (event_chunks)",
  up(db) {
    db.exec(SCHEMA_V2);
    chunkV1Events(db);
    db.exec("DROP VIEW events_text; DROP TABLE events;");
  },
}, {
  to: 3,
  description: "time spans of event chunks (event_chunk_times)",
  up(db) {
    db.exec(SCHEMA_V3);
  },
}];
