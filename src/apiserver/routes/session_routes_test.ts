import assert from "node:assert/strict";
import { sessionsKey } from "../../auth/session_records.ts";
import {
  ADMIN_PASSWORD,
  type ApiClient,
  apiFixture,
} from "../testdata/api_fixture.ts";

const SESSIONS = "/api/v1/account/sessions";

async function loggedIn(
  fx: { client(): ApiClient },
  userAgent: string,
): Promise<ApiClient> {
  const client = fx.client();
  const answer = await client.request("POST", "/api/v1/auth/login", {
    username: "admin",
    password: ADMIN_PASSWORD,
  }, { "user-agent": userAgent });
  assert.equal(answer.status, 200);
  client.csrf = answer.body.data.csrf;
  return client;
}

Deno.test("sessions: listed with where from and which is this one; an ended session's cookie gets 401", async () => {
  await using fx = await apiFixture();
  const laptop = await loggedIn(fx, "Laptop browser");
  fx.clock.advance(1000);
  const phone = await loggedIn(fx, "Phone browser");
  fx.clock.advance(5 * 60_000);
  assert.equal((await phone.request("GET", "/api/v1/dnszones")).status, 200);

  const listed = await laptop.request("GET", SESSIONS);
  assert.equal(listed.status, 200);
  const items = listed.body.data.items;
  assert.deepEqual(
    items.map((s: { userAgent: string; current: boolean }) => [
      s.userAgent,
      s.current,
    ]),
    [["Phone browser", false], ["Laptop browser", true]],
  );
  const [theirs, mine] = items;
  assert.equal(mine.created, new Date(fx.clock.t - 301_000).toISOString());
  assert.equal(mine.lastSeen, new Date(fx.clock.t).toISOString());
  assert.equal(theirs.lastSeen, new Date(fx.clock.t).toISOString());
  assert.equal(typeof theirs.address, "string");

  // A write without the CSRF header is refused, and ends nothing.
  const unchecked = await laptop.request(
    "DELETE",
    `${SESSIONS}/${theirs.id}`,
    undefined,
    { "x-kudurru-csrf": "wrong" },
  );
  assert.equal(unchecked.status, 403);
  assert.equal((await phone.request("GET", SESSIONS)).status, 200);

  const ended = await laptop.request("DELETE", `${SESSIONS}/${theirs.id}`);
  assert.equal(ended.status, 204);
  assert.equal((await phone.request("GET", "/api/v1/dnszones")).status, 401);
  assert.equal((await laptop.request("GET", "/api/v1/dnszones")).status, 200);
  assert.equal(
    (await laptop.request("DELETE", `${SESSIONS}/${theirs.id}`)).status,
    404,
  );
  assert.deepEqual(
    (await laptop.request("GET", SESSIONS)).body.data.items.map((
      s: { id: string },
    ) => s.id),
    [mine.id],
  );
});

Deno.test("sessions: log out everywhere else keeps this one only", async () => {
  await using fx = await apiFixture();
  const here = await loggedIn(fx, "here");
  const others = [await loggedIn(fx, "a"), await loggedIn(fx, "b")];
  const answer = await here.request("DELETE", SESSIONS);
  assert.equal(answer.status, 200);
  assert.equal(answer.body.data.ended, 2);
  for (const other of others) {
    assert.equal((await other.request("GET", SESSIONS)).status, 401);
  }
  const left = (await here.request("GET", SESSIONS)).body.data.items;
  assert.equal(left.length, 1);
  assert.equal(left[0].current, true);
});

Deno.test("sessions: at most 10 per user, a login beyond them ends the oldest", async () => {
  await using fx = await apiFixture();
  const first = await loggedIn(fx, "first");
  const rest: ApiClient[] = [];
  for (let i = 0; i < 10; i++) {
    fx.clock.advance(1000);
    rest.push(await loggedIn(fx, `later ${i}`));
  }
  assert.equal((await first.request("GET", SESSIONS)).status, 401);
  const items = (await rest[0]!.request("GET", SESSIONS)).body.data.items;
  assert.equal(items.length, 10);
});

Deno.test("sessions: a password change ends the others and lists only the new one; a deleted user's record goes", async () => {
  await using fx = await apiFixture();
  const admin = await loggedIn(fx, "admin's");
  const other = await loggedIn(fx, "other");
  fx.clock.advance(1000);
  const changed = await admin.request("POST", "/api/v1/auth/password", {
    current: ADMIN_PASSWORD,
    new: "another long passphrase",
  });
  assert.equal(changed.status, 200);
  admin.csrf = changed.body.data.csrf;
  assert.equal((await other.request("GET", SESSIONS)).status, 401);
  const items = (await admin.request("GET", SESSIONS)).body.data.items;
  assert.equal(items.length, 1);
  assert.equal(items[0].current, true);

  const made = await admin.request("POST", "/api/v1/users", {
    name: "carol",
    password: "carol's first passphrase",
  });
  assert.equal(made.status, 201);
  const carol = fx.client();
  assert.equal(
    (await carol.login("carol", "carol's first passphrase")).status,
    200,
  );
  assert.ok(await fx.store.getRuntime(await sessionsKey("carol")));
  assert.equal(
    (await admin.request("DELETE", "/api/v1/users/carol")).status,
    204,
  );
  assert.equal(
    await fx.store.getRuntime(await sessionsKey("carol")),
    undefined,
  );
  assert.equal((await carol.request("GET", SESSIONS)).status, 401);
});
