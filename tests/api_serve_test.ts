/**
 * The HTTP API end to end, over real HTTP against `kudurru serve` started
 * the way the README starts it: the generated first password printed once
 * and changed at the first login, a zone and a record made through the API
 * and answered over DNS (by `dig`), a viewer token that reads and is
 * refused writes with what it misses, the cookie's CSRF refusal, a
 * file-owned zone's 409 managed_by, an If-Match conflict, a live setting,
 * "why" for a blocked name, and the query log: a `dig` query shown by the
 * SSE tail and in the CSV export.
 */
import assert from "node:assert/strict";
import type { QueryInfo } from "../src/dns/wire/query.ts";
import { encodeResponse } from "../src/dns/wire/response.ts";
import {
  LOCAL_READY_ZONE,
  localReadyZoneObject,
  startKudurru,
} from "../src/testing/kudurru_server.ts";
import { startUdpUpstream } from "../src/upstream/testdata/scripted_upstream.ts";
import { rrsets } from "../src/stages/upstream/testdata/upstream_fixtures.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** A browser-like client: keeps the cookie and echoes the CSRF value. */
class Http {
  cookie: string | undefined;
  csrf: string | undefined;
  token: string | undefined;
  constructor(readonly base: string) {}

  async call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    const h = new Headers(headers);
    if (body !== undefined && !h.has("content-type")) {
      h.set("content-type", "application/json");
    }
    if (this.cookie) h.set("cookie", this.cookie);
    if (this.csrf && !h.has("x-kudurru-csrf")) {
      h.set("x-kudurru-csrf", this.csrf);
    }
    if (this.token) h.set("authorization", `Bearer ${this.token}`);
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: h,
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const set = res.headers.get("set-cookie");
    if (set) this.cookie = /^([^;]+)/.exec(set)![1];
    const text = await res.text();
    const type = res.headers.get("content-type") ?? "";
    return {
      status: res.status,
      headers: res.headers,
      text,
      body:
        (type.includes("json") && text !== ""
          ? JSON.parse(text)
          : undefined) as Json,
    };
  }

  async login(user: string, password: string) {
    const answer = await this.call("POST", "/api/v1/auth/login", {
      username: user,
      password,
    });
    if (answer.status === 200) this.csrf = answer.body.data.csrf;
    return answer;
  }
}

/** Waits until the API answers: it starts after the DNS listeners. */
async function apiUp(base: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      const res = await fetch(`${base}/api/v1/auth/status`);
      await res.body?.cancel();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`the API at ${base} did not answer within 30 s`);
}

/** `dig` against kudurru; the answer lines and the status. */
async function dig(port: number, name: string, type = "A") {
  const out = await new Deno.Command("dig", {
    args: ["@127.0.0.1", "-p", String(port), "+time=2", "+tries=1", name, type],
    stdout: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const status = /status: (\w+)/.exec(text)?.[1];
  const answers = text.split("\n").filter((l) =>
    l !== "" && !l.startsWith(";") && /\sIN\s/.test(l)
  );
  return { status, answers, text };
}

/** Reads SSE lines from `res` until `done` says so, within `ms`. */
async function readEvents(
  res: Response,
  done: (text: string) => boolean,
  ms: number,
): Promise<string> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const timer = setTimeout(() => reader.cancel(), ms);
  try {
    while (!done(text)) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      text += value;
    }
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => {});
  }
  return text;
}

Deno.test("kudurru serve: the API over real HTTP, from the first password to a dig answer and the query log", async (t) => {
  // Answers every forwarded question with one address.
  const upstream = startUdpUpstream((query: QueryInfo) => [{
    message: encodeResponse({
      id: query.id,
      opcode: 0,
      rcode: 0,
      rd: true,
      ra: true,
      question: query.question!,
      answer: rrsets([`${query.question!.name} 300 IN A 192.0.2.99`]),
    }, 65535),
  }]);
  await using server = await startKudurru({
    objects: [localReadyZoneObject()],
    readyZone: LOCAL_READY_ZONE,
    upstreamPort: upstream.port,
  });
  await apiUp(server.apiUrl);
  const api = new Http(server.apiUrl);
  const NEW_PASSWORD = "a long and new passphrase";
  try {
    await t.step(
      "the generated first password is printed once and must be changed",
      async () => {
        const password = /First start: log in.*\bpassword=(\S+)/.exec(
          server.output(),
        )?.[1]?.replace(
          /^"|"$/g,
          "",
        );
        assert.ok(
          password,
          `a generated password in the log:\n${server.output()}`,
        );
        const login = await api.login("admin", password);
        assert.equal(login.status, 200, login.text);
        assert.equal(login.body.data.mustChangePassword, true);
        const refused = await api.call("GET", "/api/v1/dnszones");
        assert.equal(refused.status, 403);
        assert.equal(refused.body.error.key, "password_change_required");
        const changed = await api.call("POST", "/api/v1/auth/password", {
          current: password,
          new: NEW_PASSWORD,
        });
        assert.equal(changed.status, 200, changed.text);
        const again = await api.login("admin", NEW_PASSWORD);
        assert.equal(again.status, 200, again.text);
        const status = await api.call("GET", "/api/v1/auth/status");
        assert.equal(status.body.data.hasDefaultCredentials, false);
      },
    );

    await t.step(
      "a zone and a record made through the API are answered by dig",
      async () => {
        const zone = await api.call("POST", "/api/v1/dnszones", {
          metadata: { name: "home" },
          spec: {
            zoneName: "home.test.",
            type: "primary",
            soa: { mname: "ns.home.test.", rname: "admin.home.test." },
          },
        });
        assert.equal(zone.status, 201, zone.text);
        const record = await api.call("POST", "/api/v1/dnszones/home/records", {
          name: "nas.home.test.",
          type: "A",
          data: "192.168.1.10",
        });
        assert.equal(record.status, 201, record.text);
        // The zone is served once the next snapshot reaches the listeners.
        let answer = await dig(server.port, "nas.home.test.");
        for (let i = 0; i < 50 && !answer.text.includes("192.168.1.10"); i++) {
          await new Promise((r) => setTimeout(r, 100));
          answer = await dig(server.port, "nas.home.test.");
        }
        assert.equal(answer.status, "NOERROR", answer.text);
        assert.match(
          answer.answers.join("\n"),
          /nas\.home\.test\.\s+\d+\s+IN\s+A\s+192\.168\.1\.10/,
        );
      },
    );

    await t.step(
      "a cookie write without the CSRF header is refused",
      async () => {
        const bare = new Http(server.apiUrl);
        bare.cookie = api.cookie;
        const refused = await bare.call("POST", "/api/v1/dnszones", {
          metadata: { name: "other" },
          spec: { zoneName: "other.test.", type: "primary" },
        });
        assert.equal(refused.status, 403);
        assert.equal(refused.body.error.key, "csrf");
      },
    );

    await t.step(
      "a viewer token reads and is refused writes, saying what it misses",
      async () => {
        const made = await api.call("POST", "/api/v1/tokens", {
          description: "dashboard widget",
          scopes: [{ role: "viewer" }],
        });
        assert.equal(made.status, 201, made.text);
        const viewer = new Http(server.apiUrl);
        viewer.token = made.body.data.token;
        const zones = await viewer.call("GET", "/api/v1/dnszones");
        assert.equal(zones.status, 200);
        assert.ok(
          zones.body.data.items.some((z: { metadata: { name: string } }) =>
            z.metadata.name === "home"
          ),
        );
        const refused = await viewer.call("DELETE", "/api/v1/dnszones/home");
        assert.equal(refused.status, 403);
        assert.deepEqual(refused.body.error.missing, {
          resource: "dnszones",
          verb: "delete",
          scope: "zone:home",
        });
      },
    );

    await t.step(
      "a zone from objects.d is 409 managed_by naming the file",
      async () => {
        const refused = await api.call("PATCH", "/api/v1/dnszones/local-test", {
          spec: { defaultTTL: 60 },
        }, { "content-type": "application/merge-patch+json" });
        assert.equal(refused.status, 409, refused.text);
        assert.equal(refused.body.error.key, "managed_by");
        assert.match(refused.body.error.message, /corpus\.yaml/);
      },
    );

    await t.step(
      "a stale If-Match is 409 conflict and changes nothing",
      async () => {
        const read = await api.call("GET", "/api/v1/dnszones/home");
        const etag = read.headers.get("etag")!;
        const first = await api.call("PATCH", "/api/v1/dnszones/home", {
          spec: { defaultTTL: 600 },
        }, {
          "content-type": "application/merge-patch+json",
          "if-match": etag,
        });
        assert.equal(first.status, 200, first.text);
        const stale = await api.call("PATCH", "/api/v1/dnszones/home", {
          spec: { defaultTTL: 60 },
        }, {
          "content-type": "application/merge-patch+json",
          "if-match": etag,
        });
        assert.equal(stale.status, 409);
        assert.equal(stale.body.error.key, "conflict");
        const after = await api.call("GET", "/api/v1/dnszones/home");
        assert.equal(after.body.data.spec.defaultTTL, 600);
      },
    );

    await t.step("why explains a blocked name without logging it", async () => {
      const asked = upstream.seen.length;
      const why = await api.call(
        "GET",
        "/api/v1/why?name=ad.doubleclick.net&client=192.0.2.50",
      );
      assert.equal(why.status, 200, why.text);
      assert.equal(why.body.data.status, "blocked_list");
      assert.deepEqual(why.body.data.groups, ["default/default"]);
      assert.deepEqual(why.body.data.policies, ["default/default"]);
      assert.ok(why.body.data.list, why.text);
      const forwarded = await api.call(
        "GET",
        "/api/v1/why?name=example.net&client=192.0.2.50",
      );
      assert.equal(forwarded.body.data.route.group, "default");
      assert.equal(upstream.seen.length, asked, "why asked the upstream");
    });

    await t.step("a live setting applies without a restart", async () => {
      const patched = await api.call("PATCH", "/api/v1/settings", {
        cache: { maxTTL: "1m" },
      }, { "content-type": "application/merge-patch+json" });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(patched.body.data.applied, ["cache.maxTTL"]);
      const refused = await api.call("PATCH", "/api/v1/settings", {
        listeners: { api: { address: "0.0.0.0:80" } },
      }, { "content-type": "application/merge-patch+json" });
      assert.equal(refused.status, 422);
    });

    await t.step(
      "the SSE tail shows a dig query, and the CSV export has it",
      async () => {
        const tail = await fetch(
          `${server.apiUrl}/api/v1/querylog/tail?domain=*.tail.example`,
          {
            headers: { cookie: api.cookie! },
          },
        );
        assert.equal(tail.status, 200);
        assert.match(
          tail.headers.get("content-type") ?? "",
          /text\/event-stream/,
        );
        const events = readEvents(
          tail,
          (text) => /event: query/.test(text),
          15_000,
        );
        const answer = await dig(server.port, "www.tail.example.");
        assert.equal(answer.status, "NOERROR", answer.text);
        const text = await events;
        assert.match(
          text,
          /event: query\n(id: \d+\n)?data: .*"www\.tail\.example\."/,
        );
        let csv = await api.call(
          "GET",
          "/api/v1/querylog/export?format=csv&domain=*.tail.example",
        );
        for (
          let i = 0;
          i < 50 && !csv.text.includes("www.tail.example.");
          i++
        ) {
          await new Promise((r) => setTimeout(r, 100));
          csv = await api.call(
            "GET",
            "/api/v1/querylog/export?format=csv&domain=*.tail.example",
          );
        }
        assert.equal(csv.status, 200);
        assert.match(csv.headers.get("content-type") ?? "", /text\/csv/);
        const lines = csv.text.trim().split("\n");
        assert.match(lines[0]!, /time/);
        assert.ok(lines.some((l) => l.includes("www.tail.example.")), csv.text);
        // The log is written by now; the names "why" explained are not in it.
        const explained = await api.call(
          "GET",
          "/api/v1/querylog?domain=doubleclick",
        );
        assert.equal(explained.status, 200, explained.text);
        assert.deepEqual(explained.body.data.items, []);
      },
    );
  } finally {
    await upstream.close();
  }
});
