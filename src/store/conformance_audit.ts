/**
 * Conformance: reading the audit trail (audit_query.ts). Every driver
 * answers newest first, filters by exact match, pages by keyset (a row
 * written between two pages is neither repeated nor does it shift the
 * pages), and refuses a bad limit, time or token with
 * InvalidAuditQueryError. Until Store has its `readAudit` method, a driver's
 * test passes its reader beside the store (memory_audit_test.ts,
 * sqlite_audit_test.ts); then `readAudit: (q) => store.readAudit(q)`.
 */
import assert from "node:assert/strict";
import {
  type AuditPage,
  type AuditQuery,
  InvalidAuditQueryError,
} from "./audit_query.ts";
import { recordSet, zone } from "./conformance_fixtures.ts";
import type { Store } from "./store.ts";

/** A store and the way to read its audit trail. */
export interface AuditStore {
  store: Store;
  readAudit(query?: AuditQuery): Promise<AuditPage>;
  close(): Promise<void>;
}

/** Opens a fresh, empty store on the given clock. */
export type OpenAuditStore = (now: () => Date) => Promise<AuditStore>;

const START = Date.parse("2026-06-01T12:00:00.000Z");

export function registerAuditTests(name: string, open: OpenAuditStore): void {
  const test = (
    what: string,
    fn: (s: AuditStore, clock: { t: number }) => Promise<void>,
  ) =>
    Deno.test(`${name} audit ${what}`, async () => {
      const clock = { t: START };
      const s = await open(() => new Date(clock.t));
      try {
        await fn(s, clock);
      } finally {
        await s.close();
      }
    });

  test("of a fresh store is empty", async (s) => {
    assert.deepEqual(await s.readAudit(), { items: [] });
  });

  test(
    "rows come newest first and say what each write did",
    async (s, clock) => {
      await s.store.apply(zone("a"), { manager: "api", actor: "alice" });
      clock.t += 1000;
      await s.store.apply(
        zone("a", "a.example.", {
          metadata: { name: "a", labels: { x: "y" } },
        }),
        { manager: "api", actor: "bob" },
      );
      clock.t += 1000;
      await s.store.delete({ kind: "DNSZone", namespace: "", name: "a" }, {
        actor: "carol",
      });
      clock.t += 1000;
      await s.store.setRuntime(
        "blocking.disabledUntil",
        "2030-01-01T00:00:00Z",
        {
          actor: "dave",
        },
      );
      const { items, continue: more } = await s.readAudit();
      assert.equal(more, undefined);
      assert.deepEqual(
        items.map((r) => [r.action, r.actor, r.kind, r.name, r.time]),
        [
          ["set", "dave", "Runtime", "blocking.disabledUntil", at(3000)],
          ["delete", "carol", "DNSZone", "a", at(2000)],
          ["update", "bob", "DNSZone", "a", at(1000)],
          ["create", "alice", "DNSZone", "a", at(0)],
        ],
      );
      const ids = items.map((r) => r.id);
      assert.deepEqual(ids, [...ids].sort((x, y) => y - x), "ids descend");
      assert.equal(new Set(ids).size, ids.length, "ids are unique");
      const create = items[3]!;
      assert.equal(create.manager, "api");
      assert.equal(create.namespace, "");
      assert.equal(create.resourceVersion, 1);
      assert.equal(create.generation, 1);
      assert.equal(items[2]!.resourceVersion, 2);
      assert.equal(items[0]!.manager, "runtime");
    },
  );

  test(
    "filters by kind, namespace, name, actor, action, time and id",
    async (s, clock) => {
      await s.store.apply(zone("a"), { manager: "api", actor: "alice" });
      await s.store.apply(zone("b"), { manager: "api", actor: "bob" });
      clock.t += 60_000;
      await s.store.apply(recordSet("default", "www"), {
        manager: "api",
        actor: "alice",
      });
      await s.store.apply(recordSet("lab", "www"), {
        manager: "api",
        actor: "bob",
      });
      await s.store.delete({ kind: "DNSZone", namespace: "", name: "b" }, {
        actor: "alice",
      });
      const pick = async (q: AuditQuery) =>
        (await s.readAudit(q)).items.map((r) =>
          `${r.action} ${r.kind} ${r.namespace}/${r.name} ${r.actor}`
        );
      assert.deepEqual(await pick({ kind: "DNSZone" }), [
        "delete DNSZone /b alice",
        "create DNSZone /b bob",
        "create DNSZone /a alice",
      ]);
      assert.deepEqual(await pick({ kind: "DNSRecordSet", namespace: "lab" }), [
        "create DNSRecordSet lab/www bob",
      ]);
      assert.deepEqual(await pick({ name: "www" }), [
        "create DNSRecordSet lab/www bob",
        "create DNSRecordSet default/www alice",
      ]);
      assert.deepEqual(await pick({ actor: "alice", action: "create" }), [
        "create DNSRecordSet default/www alice",
        "create DNSZone /a alice",
      ]);
      assert.deepEqual(await pick({ since: at(60_000) }), [
        "delete DNSZone /b alice",
        "create DNSRecordSet lab/www bob",
        "create DNSRecordSet default/www alice",
      ]);
      // Another form of the same instant compares the same.
      assert.equal(
        (await s.readAudit({ since: "2026-06-01T14:01:00+02:00" })).items
          .length,
        3,
      );
      assert.deepEqual(await pick({ actor: "nobody" }), []);
      const all = (await s.readAudit()).items;
      const one = await s.readAudit({ id: all[2]!.id });
      assert.deepEqual(one.items, [all[2]]);
    },
  );

  test("pages by keyset: a row written between pages shifts nothing", async (s) => {
    for (const n of ["a", "b", "c", "d", "e"]) {
      await s.store.apply(zone(n), { manager: "api", actor: "alice" });
    }
    const first = await s.readAudit({ limit: 2 });
    assert.deepEqual(first.items.map((r) => r.name), ["e", "d"]);
    assert.ok(first.continue);
    await s.store.apply(zone("f"), { manager: "api", actor: "alice" });
    const second = await s.readAudit({ limit: 2, continue: first.continue });
    assert.deepEqual(second.items.map((r) => r.name), ["c", "b"]);
    const third = await s.readAudit({ limit: 2, continue: second.continue! });
    assert.deepEqual(third.items.map((r) => r.name), ["a"]);
    assert.equal(third.continue, undefined);
    // A page that ends exactly at the last row says no more follow.
    const exact = await s.readAudit({ limit: 6 });
    assert.equal(exact.items.length, 6);
    assert.equal(exact.continue, undefined);
    // Filters and pages together.
    const filtered = await s.readAudit({ limit: 1, name: "a" });
    assert.deepEqual(filtered.items.map((r) => r.name), ["a"]);
    assert.equal(filtered.continue, undefined);
  });

  test("rows carry the request's origin and the bodies before and after, secrets masked", async (s) => {
    const origin = { authorization: "token abc", client: "192.0.2.7" };
    await s.store.apply(zone("a"), {
      manager: "api",
      actor: "alice",
      ...origin,
    });
    const labelled = { metadata: { name: "a", labels: { site: "x" } } };
    await s.store.apply(zone("a", "a.example.", labelled), {
      manager: "api",
      actor: "alice",
      ...origin,
    });
    await s.store.delete({ kind: "DNSZone", namespace: "", name: "a" }, {
      actor: "alice",
      ...origin,
    });
    await s.store.apply({
      apiVersion: "kudurru.io/v1alpha1",
      kind: "User",
      metadata: { name: "bob" },
      spec: { passwordHash: "$argon2id$secret-hash" },
    }, { manager: "api", actor: "alice" });
    await s.store.setRuntime("blocking.disabledUntil", "2030-01-01T00:00:00Z", {
      actor: "alice",
      ...origin,
    });
    await s.store.setRuntime("blocking.disabledUntil", null, {
      actor: "alice",
    });
    const [cleared, set, user, deleted, updated, created] =
      (await s.readAudit()).items;
    for (const row of [set, deleted, updated, created]) {
      assert.equal(row!.authorization, "token abc");
      assert.equal(row!.client, "192.0.2.7");
    }
    assert.equal(user!.client, undefined, "a write from no request says none");
    const spec = (body: unknown) =>
      (body as { spec: Record<string, unknown> }).spec;
    const labels = (body: unknown) =>
      (body as { metadata: { labels?: unknown } }).metadata.labels;
    assert.equal(created!.before, undefined);
    assert.equal(spec(created!.after).zoneName, "a.example.");
    assert.equal(labels(updated!.before), undefined);
    assert.deepEqual(labels(updated!.after), { site: "x" });
    assert.deepEqual(labels(deleted!.before), { site: "x" });
    assert.equal(deleted!.after, undefined);
    assert.equal(spec(user!.after).passwordHash, "******** (changed)");
    assert.doesNotMatch(JSON.stringify(user), /secret-hash/);
    assert.deepEqual(set!.after, { value: "2030-01-01T00:00:00Z" });
    assert.equal(set!.before, undefined);
    assert.deepEqual(cleared!.before, { value: "2030-01-01T00:00:00Z" });
    assert.equal(cleared!.after, undefined);
  });

  test("records an operation with its origin", async (s) => {
    await s.store.apply(zone("a", "a.example."), { manager: "api" });
    await s.store.recordOperation({
      actor: "alice",
      action: "flush",
      key: { kind: "Cache", namespace: "", name: "a.example." },
      after: { subtree: true },
      authorization: "token abc",
      client: "192.0.2.7",
    });
    await s.store.recordOperation({
      actor: "bob",
      action: "refresh",
      key: { kind: "BlockList", namespace: "", name: "ads" },
    });
    const [refresh, flush, created] = (await s.readAudit()).items;
    assert.deepEqual(
      { ...flush!, id: 0, time: "" },
      {
        id: 0,
        time: "",
        actor: "alice",
        manager: "operation",
        action: "flush",
        kind: "Cache",
        namespace: "",
        name: "a.example.",
        resourceVersion: created!.resourceVersion,
        generation: 0,
        authorization: "token abc",
        client: "192.0.2.7",
        after: { subtree: true },
      },
    );
    assert.equal(flush!.time, at(0));
    assert.equal(refresh!.action, "refresh");
    assert.equal(refresh!.after, undefined);
    assert.deepEqual(
      (await s.readAudit({ kind: "BlockList" })).items.map((r) => r.actor),
      ["bob"],
    );
    // Nothing stored changed: no watch event, no new resourceVersion.
    assert.equal(
      (await s.store.list("DNSZone")).resourceVersion,
      String(created!.resourceVersion),
    );
  });

  test("refuses a bad limit, time or continue token", async (s) => {
    for (
      const q of [
        { limit: 0 },
        { limit: 1001 },
        { limit: 2.5 },
        { since: "yesterday" },
        { since: "2026-13-45T00:00:00Z" },
        { continue: "not a token" },
        { continue: btoa('{"before":-1}') },
        { id: 0 },
      ]
    ) {
      await assert.rejects(
        () => s.readAudit(q),
        InvalidAuditQueryError,
        JSON.stringify(q),
      );
    }
  });
}

function at(offsetMs: number): string {
  return new Date(START + offsetMs).toISOString();
}
