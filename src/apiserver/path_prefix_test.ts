import assert from "node:assert/strict";
import { normalizePrefix, underPrefix } from "./path_prefix.ts";

const echo = (req: Request) =>
  new Response(new URL(req.url).pathname + new URL(req.url).search);

Deno.test("underPrefix serves the app below the prefix, and nothing outside it", async (t) => {
  const handler = underPrefix("/dns/", echo);
  const path = async (url: string) => {
    const res = await handler(new Request(url), undefined);
    return [res.status, await res.text()];
  };
  await t.step(
    "below the prefix: the path without it, query kept",
    async () => {
      assert.deepEqual(await path("http://h/dns/api/v1/node?x=1"), [
        200,
        "/api/v1/node?x=1",
      ]);
      assert.deepEqual(await path("http://h/dns"), [200, "/"]);
    },
  );
  await t.step("outside it, or a longer first segment: 404", async () => {
    assert.equal((await path("http://h/api/v1/node"))[0], 404);
    assert.equal((await path("http://h/dnsx/api/v1/node"))[0], 404);
  });
});

Deno.test("underPrefix with no prefix is the app itself", () => {
  assert.equal(underPrefix("", echo), echo);
  assert.equal(underPrefix("/", echo), echo);
});

Deno.test("normalizePrefix writes a prefix one way", () => {
  assert.equal(normalizePrefix("dns"), "/dns");
  assert.equal(normalizePrefix("/dns//"), "/dns");
  assert.equal(normalizePrefix(" "), "");
});
