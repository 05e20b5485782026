import assert from "node:assert/strict";
import { openQueryLogDb } from "./db.ts";
import { Dictionary, LAST_USED_SLACK_MINUTES } from "./dictionary.ts";
import { tempQueryLog } from "./test_support.ts";

Deno.test("dictionary gives each text one id, cached or not", async () => {
  await using log = await tempQueryLog();
  const db = openQueryLogDb(log.path);
  try {
    const names = new Dictionary(db, "names", undefined, 4);
    const ids = Array.from(
      { length: 10 },
      (_, i) => names.idOf(`n${i}.example.`, 100),
    );
    assert.equal(new Set(ids).size, 10);
    assert.ok(names.cached <= 4);
    // Evicted texts come back from the table with the same id.
    assert.deepEqual(
      Array.from({ length: 10 }, (_, i) => names.idOf(`n${i}.example.`, 100)),
      ids,
    );
    assert.equal(
      Number(db.prepare("SELECT count(*) AS n FROM names").get()!.n),
      10,
    );
    // Labels of different kinds never share a row.
    const lists = new Dictionary(db, "labels", "list", 10);
    const rules = new Dictionary(db, "labels", "rule", 10);
    assert.notEqual(lists.idOf("ads", 1), rules.idOf("ads", 1));
    assert.equal(
      lists.idOf("ads", 1),
      new Dictionary(db, "labels", "list", 10).idOf("ads", 1),
    );
  } finally {
    db.close();
  }
});

Deno.test("dictionary writes last_used at most once an hour per entry", async () => {
  await using log = await tempQueryLog();
  const db = openQueryLogDb(log.path);
  try {
    const clients = new Dictionary(db, "clients", undefined, 100);
    const lastUsed = () =>
      Number(db.prepare("SELECT last_used FROM clients").get()!.last_used);
    clients.idOf("192.0.2.1", 1000);
    clients.idOf("192.0.2.1", 1000 + LAST_USED_SLACK_MINUTES);
    clients.writeBumps();
    assert.equal(lastUsed(), 1000);
    clients.idOf("192.0.2.1", 1000 + LAST_USED_SLACK_MINUTES + 1);
    clients.writeBumps();
    assert.equal(lastUsed(), 1000 + LAST_USED_SLACK_MINUTES + 1);
    // After reset the cache is empty; the stored value is kept (max).
    clients.reset();
    assert.equal(clients.cached, 0);
    clients.idOf("192.0.2.1", 5);
    assert.equal(lastUsed(), 1000 + LAST_USED_SLACK_MINUTES + 1);
  } finally {
    db.close();
  }
});
