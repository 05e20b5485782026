import assert from "node:assert/strict";
import { FlushLog } from "./flush_log.ts";

/** A shared entry as importShared sees it: its name and when it was stored. */
const shared = (name: string, storedAt: number) => ({ name, storedAt });

Deno.test("flush log covers a share stored before a subtree flush of a name above it", () => {
  const log = new FlushLog();
  log.note("Example.COM", 100, { subtree: true });
  assert.equal(log.covers(shared("example.com.", 99)), true);
  assert.equal(log.covers(shared("www.example.com.", 100)), true);
  assert.equal(log.covers(shared("a.b.example.com.", 50)), true);
  assert.equal(log.covers(shared("www.example.com.", 101)), false, "later");
  assert.equal(log.covers(shared("notexample.com.", 50)), false);
  assert.equal(log.covers(shared("com.", 50)), false);
});

Deno.test("flush log of one name does not cover the names below it", () => {
  const log = new FlushLog();
  log.note("example.com", 100);
  assert.equal(log.covers(shared("example.com.", 50)), true);
  assert.equal(log.covers(shared("www.example.com.", 50)), false);
});

Deno.test("flush log of the root's subtree covers every name", () => {
  const log = new FlushLog();
  log.note(".", 100, { subtree: true });
  assert.equal(log.covers(shared("www.example.com.", 100)), true);
  assert.equal(log.covers(shared("org.", 100)), true);
  assert.equal(log.covers(shared("org.", 101)), false);
});
