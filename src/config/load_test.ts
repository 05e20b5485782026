import assert from "node:assert/strict";
import { ConfigError } from "./config_error.ts";
import { DEFAULT_CONFIG_PATH, loadConfig, type LoadOptions } from "./load.ts";

const FILE = "/etc/kudurru/kudurru.yaml";
/** Durations in Config are milliseconds. */
const HOUR_MS = 3_600_000;

/** loadConfig over an in-memory file system. */
function load(files: Record<string, string>, extra: Partial<LoadOptions> = {}) {
  return loadConfig({
    env: {},
    isRoot: true,
    hostname: "host-1",
    cwd: "/home/op",
    readFile: (p) => {
      const text = files[p];
      if (text === undefined) throw new Deno.errors.NotFound(`open "${p}"`);
      return text;
    },
    ...extra,
  });
}

function loadError(
  files: Record<string, string>,
  extra: Partial<LoadOptions> = {},
): ConfigError {
  try {
    load(files, extra);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  assert.fail("expected a ConfigError");
}

Deno.test("loadConfig uses embedded defaults when no file exists", () => {
  const got = load({});
  assert.equal(got.source, null);
  assert.equal(got.config.cache.maxTTL, 24 * HOUR_MS, "24h");
});

Deno.test("loadConfig reads /etc/kudurru/kudurru.yaml when it exists", () => {
  const got = load({ [DEFAULT_CONFIG_PATH]: "cache: { maxTTL: 1h }" });
  assert.equal(got.source, DEFAULT_CONFIG_PATH);
  assert.equal(got.config.cache.maxTTL, HOUR_MS, "1h");
});

Deno.test("loadConfig prefers the path option over KUDURRU_CONFIG", () => {
  const got = load(
    { "/a.yaml": "cache: { maxTTL: 1h }", "/b.yaml": "cache: { maxTTL: 2h }" },
    { path: "/a.yaml", env: { KUDURRU_CONFIG: "/b.yaml" } },
  );
  assert.equal(got.config.cache.maxTTL, HOUR_MS, "1h");
});

Deno.test("loadConfig reads KUDURRU_CONFIG relative to cwd", () => {
  const got = load({ "/home/op/k.yaml": "" }, {
    env: { KUDURRU_CONFIG: "k.yaml" },
  });
  assert.equal(got.source, "/home/op/k.yaml");
});

Deno.test("loadConfig rejects a named file that does not exist", () => {
  const err = loadError({}, { path: "/nope.yaml" });
  assert.equal(err.message, 'Cannot load "/nope.yaml": no such file');
});

Deno.test("loadConfig treats an empty file as an empty config", () => {
  const got = load({ [FILE]: "# nothing yet\n" });
  assert.equal(got.config.blocking.enabled, true);
});

Deno.test("loadConfig treats a section or key left empty as not set (its keys commented out)", () => {
  // Before: "cache: must be a mapping, not null".
  const got = load({
    [FILE]:
      "cache:\n  # maxEntries: 5\nquerylog:\n  retention:\n    # raw: 1h\nnode:\n  name:\n",
  });
  const defaults = load({});
  assert.equal(got.config.cache.maxEntries, defaults.config.cache.maxEntries);
  assert.deepEqual(
    got.config.querylog.retention,
    defaults.config.querylog.retention,
  );
  assert.equal(got.config.node.name, "host-1");
});

Deno.test("loadConfig defaults as root", async (t) => {
  const { config, notes } = load({});
  await t.step(
    "node name is the hostname",
    () => assert.equal(config.node.name, "host-1"),
  );
  await t.step(
    "dataDir",
    () => assert.equal(config.node.dataDir, "/var/lib/kudurru"),
  );
  await t.step(
    "dns on :53",
    () =>
      assert.deepEqual(config.listeners.dns, [{
        address: "0.0.0.0:53",
        protocols: ["udp", "tcp"],
      }]),
  );
  await t.step(
    "objectsDir",
    () => assert.equal(config.objectsDir, "/etc/kudurru/objects.d"),
  );
  await t.step("no notes", () => assert.deepEqual(notes, []));
});

Deno.test("loadConfig defaults when not root", async (t) => {
  const { config, notes } = load({}, { isRoot: false });
  await t.step(
    "dataDir under cwd",
    () => assert.equal(config.node.dataDir, "/home/op/data"),
  );
  await t.step(
    "dns on 127.0.0.1:5353",
    () =>
      assert.deepEqual(config.listeners.dns, [{
        address: "127.0.0.1:5353",
        protocols: ["udp", "tcp"],
      }]),
  );
  await t.step(
    "objectsDir under cwd",
    () => assert.equal(config.objectsDir, "/home/op/objects.d"),
  );
  await t.step("a note explains the port", () => {
    assert.equal(notes.length, 1);
    assert.match(
      notes[0]!,
      /127\.0\.0\.1:5353.*not running as root.*CAP_NET_BIND_SERVICE.*listeners\.dns/,
    );
  });
});

Deno.test("loadConfig keeps a DNS listener set in the file when not root, without a note", () => {
  const got = load({
    [FILE]: 'listeners: { dns: [{ address: "0.0.0.0:53" }] }',
  }, { isRoot: false });
  assert.deepEqual(got.config.listeners.dns, [{
    address: "0.0.0.0:53",
    protocols: ["udp", "tcp"],
  }]);
  assert.deepEqual(got.notes, []);
});

Deno.test("loadConfig puts objectsDir next to the config file", () => {
  const got = load({ "/srv/k/kudurru.yaml": "" }, {
    path: "/srv/k/kudurru.yaml",
  });
  assert.equal(got.config.objectsDir, "/srv/k/objects.d");
});

Deno.test("loadConfig expands ${VAR} references from the environment", () => {
  const got = load({ [FILE]: 'node: { name: "${NODE_NAME}" }' }, {
    env: { NODE_NAME: "node-a" },
  });
  assert.equal(got.config.node.name, "node-a");
});

Deno.test("loadConfig expands ${HOSTNAME} from the hostname when the variable is unset", () => {
  const got = load({ [FILE]: 'node: { name: "${HOSTNAME}" }' });
  assert.equal(got.config.node.name, "host-1");
});

Deno.test("loadConfig rejects a reference to an unset variable", () => {
  const err = loadError({ [FILE]: 'node: { name: "${NOPE}" }' });
  assert.match(err.message, /node\.name: environment variable NOPE is not set/);
});

Deno.test("loadConfig rejects", async (t) => {
  const cases: [string, string, RegExp][] = [
    [
      "an unknown top-level key",
      "listners: {}",
      /listners: unknown key \(did you mean "listeners"\?\)/,
    ],
    [
      "an unknown nested key",
      "cache: { prefetch: { treshold: 3 } }",
      /cache\.prefetch\.treshold: unknown key \(did you mean "threshold"\?\)/,
    ],
    [
      "an unknown key inside a list item",
      'listeners: { dns: [{ address: "0.0.0.0:53", proto: [udp] }] }',
      /listeners\.dns\[0\]\.proto: unknown key \(did you mean "protocols"\?\)/,
    ],
    [
      "a bad enum",
      "blocking: { defaultResponse: nxdomian }",
      /blocking\.defaultResponse: must be one of "zeroIP", "nxdomain", "customIP", "refused", not the string "nxdomian"/,
    ],
    [
      "a network among the block answer's addresses",
      'blocking: { defaultResponse: customIP, customIPs: ["192.0.2.0/24"] }',
      /blocking\.customIPs\[0\]: must be an IP address such as "192\.0\.2\.1"/,
    ],
    [
      "customIP answers without addresses",
      "blocking: { defaultResponse: customIP }",
      /blocking\.customIPs: must not be empty when defaultResponse is customIP/,
    ],
    [
      "a bad duration",
      "cache: { maxTTL: 1day }",
      /cache\.maxTTL: must be a duration such as "30s", "10m" or "24h"/,
    ],
    [
      "a bad size",
      "querylog: { retention: { maxDBBytes: 10GB2 } }",
      /querylog\.retention\.maxDBBytes: must be a size/,
    ],
    [
      "a wrong type",
      "cache: { maxEntries: lots }",
      /cache\.maxEntries: must be a number, not the string "lots"/,
    ],
    [
      "a number out of range",
      "ratelimit: { slip: 150 }",
      /ratelimit\.slip: must be at most 100/,
    ],
    [
      "a bad listener address",
      'listeners: { api: { address: "8080" } }',
      /listeners\.api\.address: must be "host:port"/,
    ],
    [
      "a list where a mapping belongs",
      "cache: []",
      /cache: must be a mapping, not a list/,
    ],
    [
      "a missing required field",
      'listeners: { dot: [{ address: "0.0.0.0:853" }] }',
      /listeners\.dot\[0\]\.tls: is required/,
    ],
    [
      "a conditional route to no group",
      'upstreams: { conditional: { "corp.": nope } }',
      /upstreams\.conditional\["corp\."\]: names no upstream group "nope"/,
    ],
    [
      "a TLS listener with neither files nor auto",
      'listeners: { dot: [{ address: "0.0.0.0:853", tls: {} }] }',
      /listeners\.dot\[0\]\.tls: set certFile and keyFile, or auto: selfsigned/,
    ],
    [
      "a TLS listener with a certificate and no key",
      'listeners: { doq: [{ address: "0.0.0.0:853", tls: { certFile: /c.pem } }] }',
      /listeners\.doq\[0\]\.tls: certFile and keyFile go together/,
    ],
    [
      "a TLS listener with files and auto",
      'listeners: { dot: [{ address: "0.0.0.0:853", tls: { auto: selfsigned, certFile: /c, keyFile: /k } }] }',
      /listeners\.dot\[0\]\.tls: set either auto: selfsigned or certFile and keyFile/,
    ],
    [
      "plain-HTTP DoH with no proxy in front",
      'listeners: { doh: [{ address: "127.0.0.1:8053" }] }',
      /listeners\.doh\[0\]\.tls: plain HTTP is served only behind a proxy that terminates TLS/,
    ],
    [
      "DNS over HTTP/3",
      'listeners: { doh3: [{ address: "0.0.0.0:443", tls: { auto: selfsigned } }] }',
      /listeners\.doh3: not served: Deno has no HTTP\/3 server/,
    ],
    [
      "a client-ID domain that is no name",
      'listeners: { clientIdDomain: "dns example" }',
      /listeners\.clientIdDomain: must be a domain name/,
    ],
    [
      "DoT on the port of plain DNS over TCP",
      'listeners: { dns: [{ address: "127.0.0.1:853" }], dot: [{ address: "0.0.0.0:853", tls: { auto: selfsigned } }] }',
      /listeners\.dot\[0\]: port 853 \(TCP\) is also taken by listeners\.dns\[0\]/,
    ],
    [
      "groups without default",
      'upstreams: { groups: { a: { servers: ["1.1.1.1:53"] } } }',
      /upstreams\.groups: needs a "default" group/,
    ],
    [
      "a wide PROXY prefix without a secret",
      'listeners: { proxyProtocolFrom: ["10.0.0.0/24"] }',
      /listeners\.proxyProtocolFrom\[0\]: a prefix wider than one address needs proxyProtocolSecretFile/,
    ],
    [
      "probes and metrics on one port",
      'listeners: { ops: { address: "127.0.0.1:9000" }, metrics: { address: "0.0.0.0:9000" } }',
      /listeners\.metrics\.address: port 9000 \(TCP\) is also taken by listeners\.ops\.address/,
    ],
    [
      "one DNS address twice",
      'listeners: { dns: [{ address: "[::1]:5300" }, { address: "[::]:5300", protocols: [udp] }] }',
      /listeners\.dns\[1\]: port 5300 \(UDP\) is also taken by listeners\.dns\[0\]/,
    ],
    [
      "a list at the top",
      "- a\n- b\n",
      /the file must be a mapping of sections/,
    ],
    [
      "an upstream server that is none",
      "upstreams: { groups: { default: { servers: ['not a server'] } } }\n",
      /upstreams\.groups\.default\.servers\[0\]: cannot parse upstream server "not a server": "not a server" is neither an IP address nor a host name/,
    ],
    [
      "an upstream timeout of 0",
      "upstreams: { groups: { default: { servers: ['192.0.2.53'], timeout: '0' } } }\n",
      /timeout: must be a duration between 50ms and 1m/,
    ],
    [
      "lists downloaded again at once",
      "blocking: { refreshInterval: '0' }\n",
      /blocking\.refreshInterval: must be a duration of at least 1m/,
    ],
    [
      "a duration past ten years",
      "cache: { maxTTL: 99999999999999999999h }\n",
      /cache\.maxTTL: must be a duration/,
    ],
    [
      "an alias inside itself",
      "x: &a [*a]\n",
      /a YAML alias refers to a node that contains it/,
    ],
    [
      "minTTL above maxTTL",
      "cache: { minTTL: 1h, maxTTL: 1s }\n",
      /cache\.minTTL: must not be longer than maxTTL/,
    ],
  ];
  for (const [name, yaml, want] of cases) {
    await t.step(name, () => {
      const err = loadError({ [FILE]: yaml });
      assert.match(err.message, want);
      assert.ok(err.message.startsWith(`Cannot load "${FILE}": `), err.message);
    });
  }
});

Deno.test("loadConfig lists every problem in one message", () => {
  const err = loadError({ [FILE]: "cache: { maxTTL: soon }\nlistners: {}\n" });
  assert.equal(err.problems.length, 2);
  assert.equal(
    err.message,
    `Cannot load "${FILE}": cache.maxTTL: must be a duration such as "30s", "10m" or "24h"; ` +
      'listners: unknown key (did you mean "listeners"?)',
  );
});

Deno.test("loadConfig rejects duplicate YAML keys with their line", () => {
  const err = loadError({ [FILE]: "cache:\n  maxTTL: 1h\ncache: {}\n" });
  assert.match(err.message, /line 3, column 1: Map keys must be unique/);
});

Deno.test("loadConfig rejects malformed YAML with its line", () => {
  const err = loadError({
    [FILE]: "node:\n  name: a\nlisteners: [1\ncache: {}\n",
  });
  assert.match(
    err.message,
    /^Cannot load "\/etc\/kudurru\/kudurru\.yaml": line \d+, column \d+: /,
  );
  assert.match(err.message, /line 4/);
});

Deno.test("loadConfig lets environment overrides win over the file and locks them", () => {
  const got = load(
    { [FILE]: "cache: { maxTTL: 1h }" },
    { env: { KUDURRU_CACHE__MAXTTL: "2h" } },
  );
  assert.equal(got.config.cache.maxTTL, 2 * HOUR_MS, "2h");
  assert.deepEqual(got.lockedByEnv, ["cache.maxTTL"]);
});

Deno.test("loadConfig names the variable when an env value is invalid", () => {
  const err = loadError({}, { env: { KUDURRU_CACHE__MAXTTL: "forever" } });
  assert.match(
    err.message,
    /^Cannot load the configuration \(embedded defaults\): /,
  );
  assert.match(
    err.message,
    /cache\.maxTTL \(from KUDURRU_CACHE__MAXTTL\): must be a duration/,
  );
});

Deno.test("loadConfig rejects an env variable that names no key", () => {
  const err = loadError({}, { env: { KUDURRU_CACHE__MAXTLL: "1h" } });
  assert.match(
    err.message,
    /KUDURRU_CACHE__MAXTLL: names no setting \(did you mean KUDURRU_CACHE__MAXTTL\?\)/,
  );
});

Deno.test("loadConfig sets the DNS listener from the environment when not root", () => {
  const got = load({}, {
    isRoot: false,
    env: { KUDURRU_LISTENERS__DNS: "0.0.0.0:53" },
  });
  assert.deepEqual(got.config.listeners.dns, [{
    address: "0.0.0.0:53",
    protocols: ["udp", "tcp"],
  }]);
  assert.deepEqual(got.notes, []);
});

Deno.test("loadConfig returns configs that share no objects", () => {
  const a = load({});
  a.config.upstreams.bootstrap.push("9.9.9.9:53");
  assert.deepEqual(load({}).config.upstreams.bootstrap, ["1.1.1.1:53"]);
});

Deno.test("loadConfig loads the example in docs/examples/kudurru.yaml", () => {
  const path =
    new URL("../../docs/examples/kudurru.yaml", import.meta.url).pathname;
  const got = loadConfig({
    path,
    env: {},
    isRoot: true,
    hostname: "host-1",
    cwd: "/",
  });
  assert.equal(got.config.node.name, "host-1");
  assert.equal(
    got.config.upstreams.conditional["corp.example."],
    "internal-ad",
  );
  assert.equal(got.config.objects.length, 2);
});

Deno.test("loadConfig refuses a file that is not UTF-8, naming where", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/kudurru.yaml`;
    // "Café" written in Latin-1: read leniently it would become "Caf\uFFFD".
    await Deno.writeFile(
      path,
      new Uint8Array([
        ...new TextEncoder().encode("node:\n  name: Caf"),
        0xe9,
        0x0a,
      ]),
    );
    assert.throws(
      () =>
        loadConfig({ path, env: {}, isRoot: true, hostname: "h", cwd: "/" }),
      (err: unknown) =>
        err instanceof ConfigError &&
        /not UTF-8: byte 0xe9 at line 2, column 12/.test(err.message),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loadConfig names a bad ratelimit prefix length and the allowed range", () => {
  const err = loadError({
    [FILE]:
      'ratelimit: { ipv4: { "32": 600, "032": 600 }, ipv6: { "129": 1 } }',
  });
  assert.deepEqual(err.problems, [
    'ratelimit.ipv4["032"]: has a key that is not allowed: must be a prefix length from 0 to 32, without sign or leading zeros',
    'ratelimit.ipv6["129"]: has a key that is not allowed: must be a prefix length from 0 to 128, without sign or leading zeros',
  ]);
});

Deno.test("loadConfig refuses a ratelimit.maxBuckets that cannot limit", () => {
  const err = loadError({ [FILE]: "ratelimit: { maxBuckets: 2 }" });
  assert.deepEqual(err.problems, [
    "ratelimit.maxBuckets: must be at least 3, not 2: a query needs one bucket per limited prefix length (3 in ipv6), and with fewer it evicts the buckets it just made, so no client is ever limited",
  ]);
});

Deno.test("loadConfig lets listeners share a port number where they do not clash", () => {
  // Port 0 picks a free port each; 0.0.0.0 and [::] clash only where IPv6
  // sockets take IPv4 too, which the bind error explains.
  const got = load({
    [FILE]:
      'listeners: { ops: { address: "127.0.0.1:0" }, metrics: { address: "127.0.0.1:0" }, ' +
      'dns: [{ address: "0.0.0.0:5300" }, { address: "[::]:5300" }] }',
  });
  assert.equal(got.config.listeners.dns.length, 2);
});

Deno.test("auth.publicURL is an absolute http(s) URL without user, query or fragment", () => {
  const at = (url: string) =>
    load({ [DEFAULT_CONFIG_PATH]: `auth: { publicURL: "${url}" }` });
  assert.equal(
    at("https://dns.example.com/kudurru").config.auth.publicURL,
    "https://dns.example.com/kudurru",
  );
  assert.equal(
    at("http://127.0.0.1:8080/").config.auth.publicURL,
    "http://127.0.0.1:8080/",
  );
  assert.equal(load({}).config.auth.publicURL, "");
  for (
    const bad of [
      "dns.example.com/kudurru",
      "/kudurru",
      "ftp://dns.example.com/",
      "javascript:alert(1)",
      "https://user:pw@dns.example.com/",
      "https://dns.example.com/?a=1",
      "https://dns.example.com/#top",
      "https://dns.example.com/?",
    ]
  ) {
    const error = loadError({
      [DEFAULT_CONFIG_PATH]: `auth: { publicURL: "${bad}" }`,
    });
    assert.match(error.message, /auth\.publicURL/, bad);
  }
});
