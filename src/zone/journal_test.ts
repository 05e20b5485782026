import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { migrateSchema, type Migration } from "../sqlite/migrations.ts";
import { sectionText, zoneFromText } from "../testing/zone_text.ts";
import {
  journalMigration,
  ZoneJournal,
  type ZoneJournalOptions,
} from "./journal.ts";
import type { ZoneContent } from "./types.ts";
import { diffSize, diffZones, type ZoneDiff } from "./zone_diff.ts";

const ZONE = "example.org.";
const DAY = 24 * 60 * 60 * 1000;

/** A database file as kudurru lays one out: meta first, the journal as a later step. */
const MIGRATIONS: Migration[] = [
  {
    to: 1,
    description: "meta",
    up: (db) =>
      db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"),
  },
  journalMigration(2),
];

function openDb(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL");
  migrateSchema(db, path, MIGRATIONS, 2);
  return db;
}

async function tempDb() {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-journal-" });
  return {
    path: join(dir, "journal.db"),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

/** Version `serial` of the zone: `www` has `count` addresses (serial mod 16). */
function version(
  serial: number,
  count = serial % 16,
  zone = ZONE,
): ZoneContent {
  const lines = [
    `${zone} 300 IN SOA ns1.${zone} hostmaster.${zone} ${serial} 3600 900 1209600 300`,
    `${zone} 300 IN NS ns1.${zone}`,
  ];
  for (let i = 1; i <= count; i++) {
    lines.push(`www.${zone} 300 IN A 192.0.2.${i}`);
  }
  return zoneFromText(zone, lines);
}

function step(from: number, to: number, zone = ZONE): ZoneDiff {
  return diffZones(
    version(from, from % 16, zone),
    version(to, to % 16, zone),
  );
}

/** A diff's records as lines, for comparing what came back. */
function lines(diff: ZoneDiff): string[] {
  return [
    ...sectionText([diff.fromSoa]),
    ...sectionText(diff.removed).map((line) => `- ${line}`),
    ...sectionText([diff.toSoa]),
    ...sectionText(diff.added).map((line) => `+ ${line}`),
  ];
}

function journalOf(db: DatabaseSync, opts: ZoneJournalOptions = {}) {
  return new ZoneJournal(db, opts);
}

/** A journal in a fresh file, closed and removed when disposed. */
async function journalFile(opts: ZoneJournalOptions = {}) {
  const file = await tempDb();
  const db = openDb(file.path);
  return {
    db,
    journal: journalOf(db, opts),
    async [Symbol.asyncDispose]() {
      db.close();
      await file[Symbol.asyncDispose]();
    },
  };
}

Deno.test("since() gives the chain of differences from a serial to the current one", async () => {
  await using file = await journalFile();
  const { journal } = file;
  const diffs = [step(1, 2), step(2, 3), step(3, 4)];
  for (const diff of diffs) journal.record(ZONE, diff);
  assert.deepEqual(journal.since(ZONE, 1, 4)?.map(lines), diffs.map(lines));
  assert.deepEqual(
    journal.since(ZONE, 2, 4)?.map(lines),
    diffs.slice(1).map(lines),
  );
  assert.deepEqual(
    journal.since(ZONE, 3, 4)?.map(lines),
    diffs.slice(2).map(lines),
  );
  assert.deepEqual(lines(journal.since(ZONE, 1, 4)![2]!), [
    "example.org. 300 IN SOA ns1.example.org. hostmaster.example.org. 3 3600 900 1209600 300",
    "example.org. 300 IN SOA ns1.example.org. hostmaster.example.org. 4 3600 900 1209600 300",
    "+ www.example.org. 300 IN A 192.0.2.4",
  ]);
  // A caller whose current version is behind the journal's newest entry.
  assert.deepEqual(
    journal.since(ZONE, 1, 3)?.map(lines),
    diffs.slice(0, 2).map(lines),
  );
});

Deno.test("since(): [] when up to date or newer, undefined when the journal cannot answer", async () => {
  await using file = await journalFile();
  const { journal } = file;
  journal.record(ZONE, step(1, 2));
  journal.record(ZONE, step(2, 3));
  assert.deepEqual(journal.since(ZONE, 3, 3), []);
  // RFC 1995 §2: a newer serial is answered with the current SOA alone.
  assert.deepEqual(journal.since(ZONE, 9, 3), []);
  assert.equal(journal.since(ZONE, 0, 3), undefined, "serial never recorded");
  assert.equal(journal.since(ZONE, 1, 5), undefined, "chain stops short");
  assert.equal(
    journal.since("example.net.", 1, 3),
    undefined,
    "no such zone",
  );
  assert.equal(journal.since("example.net.", 3, 3)?.length, 0);
});

Deno.test("the journal survives closing and reopening its file", async () => {
  await using file = await tempDb();
  const diffs = [step(1, 2), step(2, 3), step(3, 4)];
  const first = openDb(file.path);
  try {
    for (const diff of diffs) journalOf(first).record(ZONE, diff);
  } finally {
    first.close();
  }
  const again = openDb(file.path);
  try {
    const journal = journalOf(again);
    assert.deepEqual(journal.since(ZONE, 1, 4)?.map(lines), diffs.map(lines));
    assert.deepEqual(journal.stats(ZONE), {
      entries: 3,
      bytes: diffs.reduce((sum, diff) => sum + diffSize(diff), 0),
      oldestSerial: 1,
    });
    // Recording goes on from where it stopped.
    journal.record(ZONE, step(4, 5));
    assert.equal(journal.since(ZONE, 1, 5)?.length, 4);
  } finally {
    again.close();
  }
});

Deno.test("a difference that does not start at the last serial drops the broken chain", async () => {
  await using file = await journalFile();
  const { journal } = file;
  journal.record(ZONE, step(1, 2));
  journal.record(ZONE, step(2, 3));
  journal.record(ZONE, step(5, 6));
  assert.equal(journal.since(ZONE, 1, 6), undefined);
  assert.equal(journal.since(ZONE, 1, 3), undefined);
  assert.deepEqual(journal.since(ZONE, 5, 6)?.map(lines), [
    lines(step(5, 6)),
  ]);
  assert.deepEqual(journal.stats(ZONE).entries, 1);
});

Deno.test("the same step recorded again replaces the last entry", async () => {
  await using file = await journalFile();
  const { journal } = file;
  journal.record(ZONE, step(1, 2));
  journal.record(ZONE, step(2, 3));
  // Serial 3 stamped again on other content, from the same serial 2.
  const other = diffZones(version(2), version(3, 9));
  journal.record(ZONE, other);
  assert.equal(journal.stats(ZONE).entries, 2);
  assert.deepEqual(journal.since(ZONE, 1, 3)?.map(lines), [
    lines(step(1, 2)),
    lines(other),
  ]);
});

Deno.test("record() trims the oldest entries past the size cap", async () => {
  await using file = await tempDb();
  const db = openDb(file.path);
  try {
    const diffs = [step(1, 2), step(2, 3), step(3, 4), step(4, 5)];
    const sizes = diffs.map((diff) => diffSize(diff));
    // Room for the last two entries, not three.
    const cap = sizes[2]! + sizes[3]! + Math.floor(sizes[1]! / 2);
    const journal = journalOf(db, { maxBytesPerZone: cap });
    for (const diff of diffs) journal.record(ZONE, diff);
    assert.deepEqual(journal.stats(ZONE), {
      entries: 2,
      bytes: sizes[2]! + sizes[3]!,
      oldestSerial: 3,
    });
    assert.equal(journal.since(ZONE, 2, 5), undefined);
    assert.deepEqual(
      journal.since(ZONE, 3, 5)?.map(lines),
      diffs.slice(2).map(lines),
    );
  } finally {
    db.close();
  }
});

Deno.test("record() keeps no entry at all when the newest alone is over the cap", async () => {
  await using file = await tempDb();
  const db = openDb(file.path);
  try {
    const small = step(1, 2);
    const big = diffZones(version(2, 2), version(3, 200));
    const journal = journalOf(db, { maxBytesPerZone: diffSize(big) - 1 });
    journal.record(ZONE, small);
    journal.record(ZONE, big);
    assert.deepEqual(journal.stats(ZONE), { entries: 0, bytes: 0 });
    assert.equal(journal.since(ZONE, 1, 3), undefined);
    assert.equal(journal.since(ZONE, 2, 3), undefined);
    // The chain starts anew after it.
    const next = diffZones(version(3, 200), version(4, 200));
    journal.record(ZONE, next);
    assert.deepEqual(journal.since(ZONE, 3, 4)?.map(lines), [lines(next)]);
  } finally {
    db.close();
  }
});

Deno.test("record() drops entries older than maxAgeMs, never the newest", async () => {
  await using file = await tempDb();
  const db = openDb(file.path);
  try {
    let now = 1_000 * DAY;
    const journal = journalOf(db, { maxAgeMs: 14 * DAY, now: () => now });
    journal.record(ZONE, step(1, 2));
    now += DAY;
    journal.record(ZONE, step(2, 3));
    now += 13 * DAY;
    journal.record(ZONE, step(3, 4));
    // The first entry is 14 days old: not older than the limit yet.
    assert.equal(journal.stats(ZONE).entries, 3);
    now += 1;
    journal.record(ZONE, step(4, 5));
    assert.deepEqual(journal.stats(ZONE).oldestSerial, 2);
    assert.equal(journal.since(ZONE, 1, 5), undefined);
    assert.equal(journal.since(ZONE, 2, 5)?.length, 3);
    // A year later the newest entry, however old, stays.
    now += 365 * DAY;
    const fresh = journalOf(db, { maxAgeMs: 14 * DAY, now: () => now });
    fresh.record(ZONE, step(5, 6));
    assert.deepEqual(fresh.stats(ZONE).entries, 1);
    assert.equal(fresh.since(ZONE, 5, 6)?.length, 1);
  } finally {
    db.close();
  }
});

Deno.test("an SOA-only change and a TTL change come back as recorded", async () => {
  await using file = await journalFile();
  const { journal } = file;
  const soaOnly = diffZones(version(1, 2), version(2, 2));
  const longer = version(3, 2);
  longer.rrsets = longer.rrsets.map((r) =>
    r.type === 1 ? { ...r, ttl: 600 } : r
  );
  const ttl = diffZones(version(2, 2), longer);
  journal.record(ZONE, soaOnly);
  journal.record(ZONE, ttl);
  const [first, second] = journal.since(ZONE, 1, 3)!;
  assert.deepEqual(lines(first!), [
    "example.org. 300 IN SOA ns1.example.org. hostmaster.example.org. 1 3600 900 1209600 300",
    "example.org. 300 IN SOA ns1.example.org. hostmaster.example.org. 2 3600 900 1209600 300",
  ]);
  assert.deepEqual(lines(second!).slice(1, 3), [
    "- www.example.org. 300 IN A 192.0.2.1",
    "- www.example.org. 300 IN A 192.0.2.2",
  ]);
  assert.deepEqual(lines(second!).slice(4), [
    "+ www.example.org. 600 IN A 192.0.2.1",
    "+ www.example.org. 600 IN A 192.0.2.2",
  ]);
});

Deno.test("serials follow RFC 1982 across the wrap from 2^32 - 1 to 0", async () => {
  await using file = await journalFile();
  const { journal } = file;
  journal.record(ZONE, step(4294967294, 4294967295));
  journal.record(ZONE, step(4294967295, 0));
  journal.record(ZONE, step(0, 1));
  assert.equal(journal.since(ZONE, 4294967294, 1)?.length, 3);
  assert.deepEqual(journal.since(ZONE, 1, 0), [], "1 is newer than 0");
  assert.throws(() => journal.record(ZONE, step(1, 1)), RangeError);
  assert.throws(() => journal.record(ZONE, step(2, 1)), RangeError);
  assert.equal(journal.stats(ZONE).entries, 3);
});

Deno.test("zones are journalled apart, and forget() drops one", async () => {
  await using file = await journalFile();
  const { journal } = file;
  journal.record(ZONE, step(1, 2));
  journal.record("example.net.", step(1, 2, "example.net."));
  journal.record("example.net.", step(7, 8, "example.net."));
  assert.equal(journal.since(ZONE, 1, 2)?.length, 1);
  journal.forget(ZONE);
  assert.deepEqual(journal.stats(ZONE), { entries: 0, bytes: 0 });
  assert.equal(journal.since(ZONE, 1, 2), undefined);
  assert.equal(journal.since("example.net.", 7, 8)?.length, 1);
});

Deno.test("a damaged entry makes since() answer undefined, reported once", async () => {
  await using file = await tempDb();
  const db = openDb(file.path);
  try {
    const damaged: [string, unknown][] = [];
    const journal = journalOf(db, {
      onDamaged: (zone, error) => damaged.push([zone, error]),
    });
    journal.record(ZONE, step(1, 2));
    journal.record(ZONE, step(2, 3));
    journal.record("example.net.", step(1, 2, "example.net."));
    db.prepare(
      "UPDATE zone_journal SET diff = substr(diff, 1, 20) WHERE zone = ? AND from_serial = 2",
    ).run(ZONE);
    assert.equal(journal.since(ZONE, 2, 3), undefined);
    assert.equal(damaged.length, 1);
    assert.equal(damaged[0]![0], ZONE);
    assert.equal(
      journal.stats(ZONE).entries,
      0,
      "the unusable chain is dropped",
    );
    assert.equal(journal.since(ZONE, 1, 3), undefined);
    assert.equal(damaged.length, 1);
    assert.equal(journal.since("example.net.", 1, 2)?.length, 1);
    // A value that is no blob at all, in the other zone.
    db.prepare("UPDATE zone_journal SET diff = 'text' WHERE zone = ?").run(
      "example.net.",
    );
    assert.equal(journal.since("example.net.", 1, 2), undefined);
    assert.equal(damaged.length, 2);
  } finally {
    db.close();
  }
});
