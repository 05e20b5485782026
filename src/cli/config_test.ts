import assert from "node:assert/strict";
import { bufferIO, UsageError } from "./command.ts";
import { type ConfigCommandHost, createConfigCommand } from "./config.ts";
import type { RunningServer } from "../server/control_socket.ts";

const FILE = "/etc/kudurru/kudurru.yaml";

function host(
  files: Record<string, string>,
  env: Record<string, string> = {},
): ConfigCommandHost {
  return {
    environment: () => env,
    isRoot: () => true,
    hostname: () => "host-1",
    cwd: () => "/",
    readFile: (p) => {
      const text = files[p];
      if (text === undefined) throw new Deno.errors.NotFound(`open "${p}"`);
      return text;
    },
  };
}

async function run(args: string[], h: ConfigCommandHost = host({})) {
  const b = bufferIO();
  const code = await createConfigCommand(h).run(args, b.io);
  return { code, stdout: b.stdout(), stderr: b.stderr() };
}

Deno.test("config schema prints the JSON Schema", async () => {
  const got = await run(["schema"]);
  assert.equal(got.code, 0);
  const schema = JSON.parse(got.stdout);
  assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
  assert.ok(schema.properties.cache);
});

Deno.test("config get prints the effective config as YAML", async () => {
  const got = await run(["get"], host({ [FILE]: "cache: { maxTTL: 1h }" }));
  assert.equal(got.code, 0);
  assert.match(got.stdout, /maxTTL: 1h/);
  assert.match(got.stdout, /name: host-1/);
});

Deno.test("config get prints one key", async () => {
  const got = await run(
    ["get", "cache.maxTTL"],
    host({}, { KUDURRU_CACHE__MAXTTL: "3h" }),
  );
  assert.equal(got.stdout, "3h\n");
});

Deno.test("config get prints JSON with -o json", async () => {
  const got = await run(["get", "upstreams.bootstrap", "-o", "json"]);
  assert.deepEqual(JSON.parse(got.stdout), ["1.1.1.1:53"]);
});

Deno.test("config get reads the file named by --config", async () => {
  const got = await run(
    ["get", "node.name", "--config", "/x.yaml"],
    host({ "/x.yaml": "node: { name: x }" }),
  );
  assert.equal(got.stdout, "x\n");
});

Deno.test("config get masks secrets", async () => {
  const got = await run(
    ["get"],
    host({}, { KUDURRU_AUTH__BOOTSTRAP__ADMINPASSWORD: "hunter2" }),
  );
  assert.ok(!got.stdout.includes("hunter2"));
  assert.match(got.stdout, /adminPassword: "\*{8}"/);
});

Deno.test("config get reports a bad config on stderr with exit code 1", async () => {
  const got = await run(["get"], host({ [FILE]: "listners: {}" }));
  assert.equal(got.code, 1);
  assert.equal(got.stdout, "");
  assert.match(
    got.stderr,
    /^Cannot load "\/etc\/kudurru\/kudurru\.yaml": listners: unknown key/,
  );
});

Deno.test("config rejects bad usage", async (t) => {
  const cases: [string, string[], RegExp][] = [
    ["no subcommand", [], /missing subcommand/],
    ["an unknown subcommand", ["set"], /unknown subcommand "set"/],
    [
      "an unknown flag",
      ["get", "--nope"],
      /kudurru config get: Unknown option '--nope'/,
    ],
    [
      "a bad output format",
      ["get", "-o", "xml"],
      /kudurru config get: -o must be yaml or json, not "xml"/,
    ],
    ["two keys", ["get", "a", "b"], /unexpected argument "b"/],
    ["arguments to schema", ["schema", "x"], /unexpected argument "x"/],
    [
      "an unknown key",
      ["get", "cache.maxTLL"],
      /no setting "cache\.maxTLL" \(did you mean "cache\.maxTTL"\?\)/,
    ],
    [
      "a misspelt section",
      ["get", "cach"],
      /no setting "cach" \(did you mean "cache"\?\)/,
    ],
  ];
  for (const [name, args, want] of cases) {
    await t.step(name, async () => {
      await assert.rejects(run(args), (err: unknown) => {
        assert.ok(err instanceof UsageError);
        assert.match(err.message, want);
        return true;
      });
    });
  }
});

const PIHOLE_CONF = `# written by Pi-hole
server=1.1.1.1
server=/corp.example/10.0.0.5
server=/ad.corp.example/10.0.0.5
rev-server=192.168.1.0/24,192.168.1.1
local=/lan/
cache-size=10000
`;

Deno.test("config import-dnsmasq prints the upstreams its forwarding lines mean", async () => {
  const got = await run(
    ["import-dnsmasq", "/etc/dnsmasq.d/01-pihole.conf", "-o", "json"],
    host({ "/etc/dnsmasq.d/01-pihole.conf": PIHOLE_CONF }),
  );
  assert.equal(got.code, 0, got.stderr);
  const { upstreams } = JSON.parse(got.stdout);
  assert.deepEqual(upstreams.groups.default, { servers: ["1.1.1.1"] });
  assert.equal(
    upstreams.conditional["corp.example."],
    upstreams.conditional["ad.corp.example."],
  );
  const corp = upstreams.groups[upstreams.conditional["corp.example."]];
  assert.deepEqual(corp, { servers: ["10.0.0.5"] });
  assert.ok(upstreams.conditional["1.168.192.in-addr.arpa."]);
  assert.match(got.stderr, /never forwards lan/);
  assert.match(got.stderr, /1 line\(s\) that are not forwarding lines/);
});

Deno.test("config import-dnsmasq output is valid upstreams settings", async () => {
  const files = { "/d.conf": PIHOLE_CONF };
  const imported = await run(["import-dnsmasq", "/d.conf"], host(files));
  assert.equal(imported.code, 0);
  // The YAML it prints, used as kudurru.yaml, loads and reads back.
  const got = await run(
    ["get", "upstreams.conditional", "-o", "json"],
    host({ [FILE]: imported.stdout }),
  );
  assert.equal(got.code, 0, got.stderr);
  assert.ok(JSON.parse(got.stdout)["corp.example."]);
});

Deno.test("config import-dnsmasq explains a line it cannot import and a missing file", async () => {
  const bad = await run(
    ["import-dnsmasq", "/d.conf"],
    host({ "/d.conf": "server=/corp.example/10.0.0.5@eth0\n" }),
  );
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /"\/d\.conf": line 1: /);
  assert.equal(bad.stdout, "");
  const missing = await run(["import-dnsmasq", "/nope.conf"], host({}));
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /Cannot read "\/nope\.conf"/);
  await assert.rejects(run(["import-dnsmasq"]), UsageError);
});

/** A host whose data directory has a server that started with `config`. */
function withServer(
  files: Record<string, string>,
  server: RunningServer,
): ConfigCommandHost & { asked: string[] } {
  const asked: string[] = [];
  return {
    ...host(files),
    asked,
    askServer: (dataDir) => {
      asked.push(dataDir);
      return Promise.resolve(server);
    },
  };
}

/** The configuration a server started with, as the control socket sends it. */
async function runningConfigOf(files: Record<string, string>) {
  const got = await run(["get", "-o", "json"], host(files));
  return JSON.parse(got.stdout);
}

Deno.test("config get says it shows the file, and what the running server uses when it differs", async () => {
  const started = await runningConfigOf({ [FILE]: "" });
  const running: RunningServer = {
    state: "running",
    path: "/var/lib/kudurru/kudurru.sock",
    running: {
      source: FILE,
      startedAt: "2030-01-02T03:04:05.000Z",
      config: started,
    },
  };
  // kudurru.yaml edited after the server started.
  const edited = withServer(
    { [FILE]: "blocking: { enabled: false }\n" },
    running,
  );
  const got = await run(["get", "blocking.enabled"], edited);
  assert.equal(got.code, 0);
  assert.equal(got.stdout, "false\n", "stdout is still the file's value");
  assert.deepEqual(edited.asked, ["/var/lib/kudurru"]);
  assert.match(
    got.stderr,
    /^# Shows \/etc\/kudurru\/kudurru\.yaml with this shell's KUDURRU_\* variables: what the next start reads\.\n/,
  );
  assert.match(
    got.stderr,
    /# The server running on \/var\/lib\/kudurru \(started 2030-01-02T03:04:05\.000Z\) uses other values until it restarts:\n# {3}blocking\.enabled: true \(above: false\)\n$/,
  );
  // The whole file: only the keys that differ are listed.
  const all = await run(["get"], edited);
  assert.match(all.stderr, /# {3}blocking\.enabled: true \(above: false\)\n$/);

  const same = await run(
    ["get", "blocking.enabled"],
    withServer({ [FILE]: "" }, running),
  );
  assert.equal(same.stdout, "true\n");
  assert.match(same.stderr, /uses the same value\.\n$/);
});

Deno.test("config get says when no server runs, or when it cannot ask", async () => {
  const none = await run(
    ["get", "cache.maxTTL"],
    withServer({}, { state: "absent", path: "/var/lib/kudurru/kudurru.sock" }),
  );
  assert.equal(none.code, 0);
  assert.match(none.stderr, /embedded defaults/);
  assert.match(
    none.stderr,
    /# No server is running on \/var\/lib\/kudurru\.\n$/,
  );
  const denied = await run(
    ["get", "cache.maxTTL"],
    withServer({}, {
      state: "unknown",
      path: "/var/lib/kudurru/kudurru.sock",
      why:
        "cannot reach the running server: run as the server's user (permission denied on /var/lib/kudurru/kudurru.sock)",
    }),
  );
  assert.equal(denied.code, 0);
  assert.match(
    denied.stderr,
    /# Cannot ask the server running on \/var\/lib\/kudurru: .*permission denied.*; what it uses may differ\.\n$/,
  );
});
