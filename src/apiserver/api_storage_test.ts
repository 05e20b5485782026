/**
 * The API over a real SQLite store that cannot take a write (another
 * process holds the write lock): 503 `unavailable` with a hint and
 * Retry-After, nothing stored, and the same request works once the lock
 * is gone.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { openSqliteStore } from "../store/sqlite/sqlite_store.ts";
import { ADMIN_PASSWORD, apiFixture } from "./testdata/api_fixture.ts";

const ZONE = {
  metadata: { name: "home" },
  spec: { zoneName: "home.test.", type: "primary" },
};

Deno.test("api on a locked database answers 503 unavailable and changes nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-api-locked-" });
  const path = join(dir, "state.db");
  const store = await openSqliteStore(path, { busyTimeoutMs: 200 });
  try {
    await using f = await apiFixture({ store });
    const client = f.client();
    assert.equal((await client.login("admin", ADMIN_PASSWORD)).status, 200);
    const other = new DatabaseSync(path);
    other.exec("PRAGMA busy_timeout = 0");
    other.exec("BEGIN IMMEDIATE");
    let refused;
    try {
      refused = await client.request("POST", "/api/v1/dnszones", ZONE);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
    assert.equal(refused.body.error.key, "unavailable");
    assert.match(refused.body.error.hint, /nothing was changed/);
    assert.equal(refused.headers.get("retry-after"), "5");
    const missing = await client.request("GET", "/api/v1/dnszones/home");
    assert.equal(missing.status, 404, "nothing was stored");
    const created = await client.request("POST", "/api/v1/dnszones", ZONE);
    assert.equal(created.status, 201, JSON.stringify(created.body));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
