/**
 * blocking, cache flush, querylog, stats, lists refresh, export and restore
 * against a real `kudurru serve` through logged-in contexts: over the API
 * they print what the same command prints on the server's data directory
 * (compared line for line where both read the same log), a token whose
 * role lacks the permission is refused with what it misses, and
 * --data-dir still means this machine.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { API_VERSION, type KObject } from "../api/v1alpha1/meta.ts";
import { bufferIO } from "./command.ts";
import {
  cli,
  eventually,
  logInAsAdmin,
  PASSWORD,
} from "./testdata/cli_runs.ts";
import { makeQuerylogCommand } from "./querylog.ts";
import { freePort } from "../testing/free_port.ts";
import { query } from "../testing/dns_client.ts";
import {
  LOCAL_READY_ZONE,
  localReadyZoneObject,
  startKudurru,
  waitForApi,
} from "../testing/kudurru_server.ts";

function blockList(name: string, sources: unknown[]): KObject {
  return {
    apiVersion: API_VERSION,
    kind: "BlockList",
    metadata: { name, namespace: "default" },
    spec: { sources },
  };
}

Deno.test({
  name:
    "blocking, cache flush, querylog, stats and lists refresh work through a context; roles without the permission are refused; --data-dir stays local",
  async fn(t) {
    const lists = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (req) =>
        new URL(req.url).pathname === "/ads.txt"
          ? new Response("||ads.lists.test^\n", { headers: { etag: '"v1"' } })
          : new Response("gone", { status: 404 }),
    );
    const tmp = await Deno.makeTempDir({ prefix: "kudurru-cli-ops-" });
    try {
      const listUrl = `http://127.0.0.1:${lists.addr.port}`;
      await using server = await startKudurru({
        objects: [
          localReadyZoneObject(),
          blockList("fetched", [{ url: `${listUrl}/ads.txt` }]),
          blockList("broken", [{ url: `${listUrl}/missing.txt` }]),
          blockList("inline", [{ inline: "inline.lists.test\n" }]),
        ],
        readyZone: LOCAL_READY_ZONE,
        upstreamPort: freePort(),
        nodeName: "ops-node",
        env: { KUDURRU_ADMIN_PASSWORD: PASSWORD },
      });
      await waitForApi(server.apiUrl);
      const env = { XDG_CONFIG_HOME: join(tmp, "config") };
      await logInAsAdmin(server.apiUrl, env);
      for (const role of ["viewer", "operator"]) {
        const minted = await cli([
          "api",
          "POST",
          "/api/v1/tokens",
          "-d",
          JSON.stringify({ description: role, scopes: [{ role }] }),
          "--context",
          "lab",
        ], env);
        assert.equal(minted.code, 0, minted.stderr);
        const login = await cli(
          [
            "login",
            "--server",
            server.apiUrl,
            "--token-file",
            "-",
            "--name",
            role,
          ],
          env,
          `${JSON.parse(minted.stdout).data.token}\n`,
        );
        assert.equal(login.code, 0, login.stderr);
      }
      const as = (context: string, args: string[]) =>
        cli([...args, "--context", context], env);
      const local = (args: string[]) =>
        cli([...args, "--data-dir", server.dataDir], env);

      await t.step("blocking", async () => {
        const paused = await as("lab", ["blocking", "disable", "10m"]);
        assert.equal(paused.code, 0, paused.stderr);
        assert.match(
          paused.stdout,
          /^Blocking is off until (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d \(10m\)\n$/,
        );
        // A viewer reads what the admin set, through its own context.
        const seen = await as("viewer", ["blocking", "status"]);
        assert.equal(seen.code, 0, seen.stderr);
        assert.match(
          seen.stdout,
          /^Blocking is off until \S+( \S+)? \(\d+m\d*s? left, set by [^)]+\)\n$/,
        );
        // The server's data directory says the same.
        const onServer = await local(["blocking", "status"]);
        assert.equal(onServer.code, 0, onServer.stderr);
        assert.match(onServer.stdout, /^Blocking is off until /);
        const refused = await as("viewer", ["blocking", "enable"]);
        assert.equal(refused.code, 1);
        assert.equal(refused.stdout, "");
        assert.match(
          refused.stderr,
          /\(403 forbidden\)\nmissing: set on blocking \(scope cluster\)\n/,
        );
        const on = await as("operator", ["blocking", "enable"]);
        assert.equal(on.code, 0, on.stderr);
        assert.equal(on.stdout, "Blocking is on\n");
        const status = await as("viewer", ["blocking", "status"]);
        assert.equal(status.stdout, "Blocking is on\n");
      });

      await t.step("cache flush", async () => {
        const flushed = await as("operator", [
          "cache",
          "flush",
          "example.com",
          "--subtree",
        ]);
        assert.equal(flushed.code, 0, flushed.stderr);
        assert.match(
          flushed.stdout,
          new RegExp(
            `^Flushed \\d+ cached answers? for example\\.com and below from context "operator" \\(${server.apiUrl}\\)\\.\\n$`,
          ),
        );
        const refused = await as("viewer", ["cache", "flush"]);
        assert.equal(refused.code, 1);
        assert.equal(
          refused.stderr,
          `kudurru cache: context "viewer" (${server.apiUrl}): The token's scopes do not allow it (403 forbidden)\n` +
            "missing: flush on cache (scope cluster)\n" +
            "hint: ask an admin for a role that grants it\n",
        );
        // --data-dir is this machine: a data directory no server runs on
        // has its saved cache cleaned.
        const dataDir = join(tmp, "idle");
        await Deno.mkdir(dataDir);
        const idle = await cli(["cache", "flush", "--data-dir", dataDir], env);
        assert.equal(idle.code, 0, idle.stderr);
        assert.match(
          idle.stdout,
          /^No server is running on .*idle; removed 0 saved cached answers from .*local\.db\.\n$/,
        );
      });

      await t.step("querylog", async () => {
        for (const name of ["one", "two", "three"]) {
          const r = await query(server.port, `${name}.local.test`, "AAAA");
          assert.equal(r.rcode, "NXDOMAIN");
        }
        const filter = ["--domain", "*.local.test", "--type", "AAAA"];
        const logged = await eventually("three queries logged", async () => {
          const r = await as("lab", ["querylog", ...filter, "-o", "json"]);
          return JSON.parse(r.stdout).events.length === 3 ? r : undefined;
        });
        assert.deepEqual(
          JSON.parse(logged.stdout).events.map((e: { qname: string }) =>
            e.qname
          ),
          ["three.local.test.", "two.local.test.", "one.local.test."],
        );
        // Each format prints over the API what it prints from the file.
        for (const format of ["json", "table", "csv", "ndjson"]) {
          const args = ["querylog", ...filter, "-o", format];
          const remote = await as("lab", args);
          const onServer = await local(args);
          assert.equal(remote.code, 0, remote.stderr);
          assert.equal(onServer.code, 0, onServer.stderr);
          assert.equal(remote.stdout, onServer.stdout, format);
        }
        const csv = (await as("lab", ["querylog", ...filter, "-o", "csv"]))
          .stdout.split("\r\n");
        assert.match(csv[0]!, /^id,time,node,client,/);
        assert.equal(csv.length, 5, "a header, three rows and the last CRLF");
        const paged = await as("lab", ["querylog", ...filter, "--limit", "2"]);
        assert.match(paged.stderr, /^More: add --before \d+_\d+\n$/);
        const cursor = paged.stderr.trim().split(" ").at(-1)!;
        const rest = await as("lab", [
          "querylog",
          ...filter,
          "--before",
          cursor,
          "-o",
          "json",
        ]);
        assert.deepEqual(
          JSON.parse(rest.stdout).events.map((e: { qname: string }) => e.qname),
          ["one.local.test."],
        );
        const refused = await as("operator", ["querylog"]);
        assert.equal(refused.code, 1);
        assert.match(
          refused.stderr,
          /\(403 forbidden\)\nmissing: list on querylog \(scope cluster\)\n/,
        );
        const bad = await as("lab", ["querylog", "--status", "bogus"]);
        assert.equal(bad.code, 1);
        assert.match(bad.stderr, /unknown status "bogus" \(400 bad_request\)/);
      });

      await t.step("querylog -f follows through the tail", async () => {
        const stop = new AbortController();
        const b = bufferIO("", env);
        const running = makeQuerylogCommand({ signal: stop.signal }).run(
          ["-f", "--domain", "*.follow.local.test", "--context", "lab"],
          b.io,
        );
        try {
          // The first page is printed once the tail is connected.
          await eventually(
            "the first page",
            () => Promise.resolve(b.stdout() === "" ? undefined : true),
          );
          assert.equal(b.stdout(), "No queries found.\n");
          await query(server.port, "new.follow.local.test", "A");
          await eventually("the followed query", () =>
            Promise.resolve(
              b.stdout().includes("new.follow.local.test.") ? true : undefined,
            ));
        } finally {
          stop.abort();
        }
        assert.equal(await running, 0);
        const lines = b.stdout().trimEnd().split("\n");
        assert.equal(lines.length, 3, b.stdout());
        assert.match(lines[1]!, /^TIME\s+CLIENT\s+QNAME/);
        assert.match(
          lines[2]!,
          /\snew\.follow\.local\.test\.\s+A\s+NXDOMAIN\s/,
        );
      });

      await t.step("stats", async () => {
        // A fixed window, so both read the same numbers.
        const hour = 3_600_000;
        const since = new Date(Math.floor(Date.now() / hour) * hour - hour)
          .toISOString();
        const until = new Date(Math.ceil(Date.now() / hour) * hour + hour)
          .toISOString();
        const window = ["--since", since, "--until", until];
        for (const format of ["json", "table"]) {
          const args = [
            "stats",
            ...window,
            "--client",
            "127.0.0.1",
            "-o",
            format,
          ];
          // The followed query reaches the statistics when the writer
          // next rolls up: read both until they hold the same events.
          let remote = await as("lab", args);
          let onServer = await local(args);
          for (let i = 0; i < 50 && remote.stdout !== onServer.stdout; i++) {
            await new Promise((r) => setTimeout(r, 200));
            remote = await as("lab", args);
            onServer = await local(args);
          }
          assert.equal(remote.code, 0, remote.stderr);
          assert.equal(remote.stdout, onServer.stdout, format);
        }
        const report = JSON.parse(
          (await as("lab", ["stats", ...window, "-o", "json"])).stdout,
        );
        assert.ok(report.totals.queries >= 4, JSON.stringify(report.totals));
        assert.equal(report.topClients[0].client, "127.0.0.1");
        // A viewer gets the numbers, without the clients it may not see.
        const viewer = await as("viewer", ["stats", ...window]);
        assert.equal(viewer.code, 0, viewer.stderr);
        assert.match(
          viewer.stdout,
          /\nTop clients\n {2}\(top clients left out: naming clients needs get on querylog, which this context's token lacks\)\n/,
        );
        assert.match(viewer.stdout, /^Queries from /);
        const client = await as("viewer", ["stats", "--client", "127.0.0.1"]);
        assert.equal(client.code, 1);
        assert.match(client.stderr, /missing: get on querylog/);
      });

      await t.step("lists refresh", async () => {
        const fetched = await eventually(
          "the fetcher to hold the list",
          async () => {
            const r = await as("operator", ["lists", "refresh", "fetched"]);
            return /404 not_found/.test(r.stderr) ? undefined : r;
          },
        );
        assert.equal(fetched.code, 0, fetched.stderr);
        assert.match(
          fetched.stdout,
          new RegExp(
            `^BlockList default/fetched: fetched its sources now\\.\\n {2}ok {6}${listUrl}/ads\\.txt \\((changed|unchanged), as of \\S+ \\S+\\)\\n$`,
          ),
        );
        const broken = await eventually(
          "the fetcher to hold the list",
          async () => {
            const r = await as("lab", ["lists", "refresh", "broken"]);
            return /404 not_found/.test(r.stderr) ? undefined : r;
          },
        );
        assert.equal(broken.code, 1);
        assert.match(
          broken.stdout,
          new RegExp(
            `^BlockList default/broken: fetched its sources now\\.\\n {2}failed {2}${listUrl}/missing\\.txt: .*404.* \\(the copy held before, if any, stays in use\\)\\n$`,
          ),
        );
        const inline = await as("lab", ["lists", "refresh", "inline"]);
        assert.equal(inline.code, 0, inline.stderr);
        assert.equal(
          inline.stdout,
          "BlockList default/inline has no enabled URL source to fetch.\n",
        );
        const refused = await as("viewer", ["lists", "refresh", "fetched"]);
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, /missing: refresh on blocklists/);
        const noServer = await local(["lists", "refresh", "fetched"]);
        assert.equal(noServer.code, 1);
        assert.match(noServer.stderr, /run kudurru login --server URL first/);
      });

      await t.step("without a context, the data directory", async () => {
        const nobody = { XDG_CONFIG_HOME: join(tmp, "nobody") };
        const status = await cli(
          ["blocking", "status", "--data-dir", server.dataDir],
          nobody,
        );
        assert.equal(status.code, 0, status.stderr);
        assert.equal(status.stdout, "Blocking is on\n");
        const log = await cli(
          [
            "querylog",
            "--domain",
            "*.local.test",
            "--type",
            "AAAA",
            "-o",
            "ndjson",
            "--data-dir",
            server.dataDir,
          ],
          nobody,
        );
        assert.equal(log.code, 0, log.stderr);
        assert.equal(log.stdout.trimEnd().split("\n").length, 3);
        const noLogin = await cli(["lists", "refresh", "fetched"], nobody);
        assert.equal(noLogin.code, 1);
        assert.match(noLogin.stderr, /run kudurru login --server URL first/);
      });
    } finally {
      await lists.shutdown();
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
