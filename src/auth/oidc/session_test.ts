/** Sessions of a provider's login (sessions.ts): bound groups, and the provider's removal. */
import assert from "node:assert/strict";
import { masterKey } from "../encryption_keys.ts";
import { seal, sealingKeys } from "../sealed.ts";
import { SessionRecords } from "../session_records.ts";
import { newIdpSession, openSession } from "../sessions.ts";
import { createMemoryStore } from "../../store/memory/memory_store.ts";

const TIMES = { idleMs: 30 * 60_000, lifetimeMs: 12 * 3_600_000 };
const NOW = Date.parse("2026-06-01T12:00:00Z");

Deno.test("a provider's session holds the bound groups while recorded, and ends with the provider or its record", async () => {
  const master = await masterKey(new Uint8Array(32).fill(3), "test");
  const keys = await sealingKeys(
    { current: master, previous: undefined, notes: [] },
    "sessionCookie",
  );
  const store = createMemoryStore({ now: () => new Date(NOW) });
  const { cookie, claims } = await newIdpSession(
    "corp:alice",
    "corp",
    ["corp:ops"],
    keys,
    NOW,
  );
  const known = (id: string) => id === "corp";
  // Not in the user's record: it does not open.
  assert.equal(
    await openSession(store, cookie, keys, TIMES, NOW, known),
    undefined,
  );
  const records = new SessionRecords(store, TIMES);
  const origin = { actor: "corp:alice" };
  await records.add("corp:alice", {
    id: claims.sid!,
    created: NOW,
    seen: NOW,
    address: "192.0.2.1",
  }, origin);
  const live = await openSession(
    store,
    cookie,
    keys,
    TIMES,
    NOW,
    (id) => id === "corp",
  );
  assert.equal(live?.claims.u, "corp:alice");
  assert.deepEqual(live?.claims.g, ["corp:ops"]);
  assert.equal(live?.user, undefined);
  // The provider left the configuration: its sessions end.
  assert.equal(await openSession(store, cookie, keys, TIMES, NOW), undefined);
  // Ended from the record: it no longer opens.
  assert.equal(await records.end("corp:alice", () => true, origin, NOW), 1);
  assert.equal(
    await openSession(store, cookie, keys, TIMES, NOW, known),
    undefined,
  );
  // A local session may not carry groups.
  const forged = await seal(
    { u: "admin", iat: NOW, seen: NOW, csrf: "x", g: ["corp:ops"] },
    keys,
  );
  assert.equal(await openSession(store, forged, keys, TIMES, NOW), undefined);
  store.close();
});
