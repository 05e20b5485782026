/** Sessions of a provider's login (sessions.ts): bound groups, and the provider's removal. */
import assert from "node:assert/strict";
import { masterKey } from "../encryption_keys.ts";
import { seal, sealingKeys } from "../sealed.ts";
import { newIdpSession, openSession } from "../sessions.ts";
import { createMemoryStore } from "../../store/memory/memory_store.ts";

const TIMES = { idleMs: 30 * 60_000, lifetimeMs: 12 * 3_600_000 };
const NOW = Date.parse("2026-06-01T12:00:00Z");

Deno.test("a provider's session holds the bound groups, and ends with the provider", async () => {
  const master = await masterKey(new Uint8Array(32).fill(3), "test");
  const keys = await sealingKeys(
    { current: master, previous: undefined, notes: [] },
    "sessionCookie",
  );
  const store = createMemoryStore({ now: () => new Date(NOW) });
  const { cookie } = await newIdpSession(
    "corp:alice",
    "corp",
    ["corp:ops"],
    keys,
    NOW,
  );
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
  // A local session may not carry groups.
  const forged = await seal(
    { u: "admin", iat: NOW, seen: NOW, csrf: "x", g: ["corp:ops"] },
    keys,
  );
  assert.equal(await openSession(store, forged, keys, TIMES, NOW), undefined);
  store.close();
});
