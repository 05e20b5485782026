/**
 * The Lua renderer: what each line says, that a secret of any bytes stays
 * inside its string (read back by dnsdist's own Lua), that the real dnsdist
 * accepts what is rendered for several topologies, and that a broken
 * topology is refused before any Lua is written.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { generateCredentials } from "./credentials.ts";
import { checkDnsdistConfig } from "./dnsdist_check.ts";
import { CHASHED_WEIGHT, renderDnsdistLua } from "./dnsdist_lua.ts";
import { luaBytes, luaString } from "./lua_string.ts";
import {
  backendsFromList,
  type EdgeTopology,
  EdgeTopologyError,
  type TopologyFiles,
  topologyFromFlags,
} from "./topology.ts";

const SECRET = new TextEncoder().encode("s".repeat(40));

/** Files for topologyFromFlags: the secret, and TLS files that exist. */
const files: TopologyFiles = {
  readFile: (path) => {
    if (path === "/etc/kudurru/secret") return SECRET;
    throw new Deno.errors.NotFound(`no ${path}`);
  },
  isReadableFile: (path) => path.startsWith("/etc/kudurru/tls/"),
};

function topology(extra: Record<string, unknown> = {}): EdgeTopology {
  return topologyFromFlags(
    {
      backends: "10.0.0.1,10.0.0.2:5300,[2001:db8::7]:53",
      "proxy-secret-file": "/etc/kudurru/secret",
      ...extra,
    },
    undefined,
    files,
  );
}

const credentials = generateCredentials();

function linesOf(lua: string): string[] {
  return lua.split("\n");
}

Deno.test("the rendered Lua: listeners, backends, pools, the secret TLV before the routes, API and console", () => {
  const lua = renderDnsdistLua(
    topology({ "authoritative-zones": "Example.COM,b.example." }),
    credentials,
  );
  const lines = linesOf(lua);
  const code = lines.filter((l) => l !== "" && !l.startsWith("--"));
  assert.equal(code[0], 'setSecurityPollSuffix("")');
  assert.ok(code.includes('setLocal("0.0.0.0:53")'));
  assert.ok(!code.some((l) => l.startsWith("addLocal(")));
  assert.ok(code.includes("setServFailWhenNoServer(true)"));
  assert.ok(code.some((l) => /^setACL\(\{"127\.0\.0\.0\/8", /.test(l)));
  assert.ok(!code.some((l) => l.startsWith("addTLSLocal")));

  const servers = code.filter((l) => l.startsWith("newServer("));
  assert.equal(servers.length, 3);
  assert.equal(
    servers[1],
    'newServer({address="10.0.0.2:5300", name="kudurru-10-0-0-2-5300", ' +
      `id="${backendsFromList(["10.0.0.2:5300"])[0]!.id}", ` +
      `pool={"resolver", "authoritative"}, weight=${CHASHED_WEIGHT}, ` +
      "useProxyProtocol=true, " +
      'checkName="health.kudurru.internal.", checkType="TXT", ' +
      "checkClass=DNSClass.IN, mustResolve=true, checkInterval=1, " +
      "checkTimeout=1000, maxCheckFailures=2, rise=2})",
  );
  assert.match(servers[0]!, /address="10\.0\.0\.1:53"/);
  assert.match(
    servers[2]!,
    /address="\[2001:db8::7\]:53", name="kudurru-2001-db8--7-53"/,
  );

  assert.ok(code.includes('setPoolServerPolicy(chashed, "resolver")'));
  assert.ok(
    code.includes('setPoolServerPolicy(leastOutstanding, "authoritative")'),
  );
  assert.ok(code.some((l) => /^setWHashedPertubation\(\d+\)$/.test(l)));

  // Rule order: the TLV (it does not stop processing) before any pool action,
  // the authoritative zones before the catch-all resolver route.
  const rules = code.filter((l) => l.startsWith("addAction("));
  assert.equal(rules.length, 3);
  assert.equal(
    rules[0],
    `addAction(AllRule(), SetAdditionalProxyProtocolValueAction(224, ${
      luaBytes(SECRET)
    }))`,
  );
  assert.equal(
    rules[1],
    'addAction(SuffixMatchNodeRule(authoritativeZones), PoolAction("authoritative"))',
  );
  assert.equal(rules[2], 'addAction(AllRule(), PoolAction("resolver"))');
  assert.ok(code.includes('authoritativeZones:add("example.com.")'));
  assert.ok(code.includes('authoritativeZones:add("b.example.")'));

  assert.ok(code.includes('webserver("127.0.0.1:8083")'));
  const web = code.find((l) => l.startsWith("setWebserverConfig("))!;
  assert.ok(web.includes(`password="${credentials.passwordHash}"`));
  assert.ok(web.includes(`apiKey="${credentials.apiKeyHash}"`));
  assert.ok(web.includes('acl="127.0.0.0/8, ::1/128"'));
  assert.ok(!lua.includes(credentials.apiKey), "no plain API key");
  assert.ok(!lua.includes(credentials.password), "no plain password");
  assert.ok(code.includes('controlSocket("127.0.0.1:5199")'));
  assert.ok(code.includes(`setKey("${credentials.consoleKey}")`));
});

Deno.test("without authoritative zones everything goes to the resolver pool", () => {
  const rules = linesOf(renderDnsdistLua(topology(), credentials)).filter((
    l,
  ) => l.startsWith("addAction(") || l.includes("SuffixMatchNode"));
  assert.equal(rules.length, 2);
  assert.match(rules[0]!, /SetAdditionalProxyProtocolValueAction/);
  assert.equal(rules[1], 'addAction(AllRule(), PoolAction("resolver"))');
});

Deno.test("TLS: DoT and DoH on each listen host, one certificate", () => {
  const lua = renderDnsdistLua(
    topology({
      listen: ["192.0.2.53:53", "[2001:db8::53]:53", "192.0.2.53:5353"],
      "tls-dir": "/etc/kudurru/tls/",
    }),
    credentials,
  );
  const cert = '"/etc/kudurru/tls/tls.crt", "/etc/kudurru/tls/tls.key"';
  assert.deepEqual(
    linesOf(lua).filter((l) => /^add(TLS|DOH)Local/.test(l)),
    [
      `addTLSLocal("192.0.2.53:853", ${cert}, {minTLSVersion="tls1.2"})`,
      `addTLSLocal("[2001:db8::53]:853", ${cert}, {minTLSVersion="tls1.2"})`,
      `addDOHLocal("192.0.2.53:443", ${cert}, {"/dns-query"}, {minTLSVersion="tls1.2"})`,
      `addDOHLocal("[2001:db8::53]:443", ${cert}, {"/dns-query"}, {minTLSVersion="tls1.2"})`,
    ],
  );
  assert.ok(lua.includes('setLocal("192.0.2.53:53")'));
  assert.ok(lua.includes('addLocal("[2001:db8::53]:53")'));
  assert.ok(lua.includes('addLocal("192.0.2.53:5353")'));
});

Deno.test("render refuses a broken topology before writing any Lua", () => {
  const good = topology();
  const broken: [string, EdgeTopology, RegExp][] = [
    ["no backends", { ...good, backends: [] }, /no backends/],
    [
      "a short secret",
      { ...good, proxySecret: new Uint8Array(31) },
      /31 bytes, fewer than 32/,
    ],
    [
      "an API on a public address",
      { ...good, api: { host: "192.0.2.1", port: 8083 } },
      /API address is not loopback/,
    ],
    [
      "a console on a public address",
      { ...good, console: { host: "0.0.0.0", port: 5199 } },
      /console address is not loopback/,
    ],
    [
      "the API on the console's socket",
      { ...good, api: { ...good.console } },
      /same socket/,
    ],
    [
      "a pool naming a backend that is not there",
      {
        ...good,
        pools: [...good.pools, {
          name: "resolver",
          policy: "chashed",
          members: ["ghost"],
        }],
      },
      /names no backend ghost/,
    ],
    [
      "a zone with a quote",
      { ...good, authoritativeZones: ['a"b.example.'] },
      /is not a zone name/,
    ],
    [
      "two backends at one address",
      { ...good, backends: [good.backends[0]!, good.backends[0]!] },
      /two backends/,
    ],
  ];
  for (const [what, t, message] of broken) {
    assert.throws(
      () => renderDnsdistLua(t, credentials),
      (e: unknown) => e instanceof EdgeTopologyError && message.test(e.message),
      what,
    );
  }
});

Deno.test("luaString keeps safe text readable and escapes everything else", () => {
  assert.equal(luaString("10.0.0.1:53"), '"10.0.0.1:53"');
  assert.equal(luaString("[::1]:53"), '"[::1]:53"');
  assert.equal(luaString('a"b'), '"a\\034b"');
  assert.equal(luaString("a\\b"), '"a\\092b"');
  assert.equal(luaString("a\n1"), '"a\\0101"');
  assert.equal(luaString("é"), '"\\195\\169"');
  assert.equal(luaBytes(new Uint8Array([0, 65, 255])), '"\\000\\065\\255"');
});

/** Secrets whose bytes would end or bend a Lua string written naively. */
const NASTY_SECRETS: Record<string, Uint8Array> = {
  quotes: new TextEncoder().encode(`"'"'`.repeat(10)),
  backslashes: new TextEncoder().encode("\\\\\\n\\0\\x".repeat(6)),
  "newlines in the middle": new TextEncoder().encode(
    "line one\nline two\r\nline three ok ok",
  ),
  "long brackets": new TextEncoder().encode("]]..[[ ]=]--[==[ error('x') ]]"),
  "NUL and every byte": Uint8Array.from({ length: 256 }, (_, i) => i),
  "a Lua statement": new TextEncoder().encode(
    '"); error("broke out of the string"); --',
  ),
};

async function withTempDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-edge-lua-" });
  try {
    return await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("dnsdist's own Lua reads each secret back byte for byte", async () => {
  await withTempDir(async (dir) => {
    for (const [what, secret] of Object.entries(NASTY_SECRETS)) {
      const hex = [...secret].map((b) => b.toString(16).padStart(2, "0"))
        .join("");
      // The literal as rendered; Lua compares its bytes with the expected hex
      // and fails the check on any difference.
      const file = join(dir, "probe.lua");
      await Deno.writeTextFile(
        file,
        [
          'setSecurityPollSuffix("")',
          `local s = ${luaBytes(secret)}`,
          'local h = ""',
          'for i = 1, #s do h = h .. string.format("%02x", s:byte(i)) end',
          `if h ~= "${hex}" then error("secret read back as " .. h) end`,
        ].join("\n") + "\n",
      );
      const check = await checkDnsdistConfig(file);
      assert.ok(check.ok, `${what}: ${check.output}`);
      // And a wrong expectation does fail: the probe can tell.
      await Deno.writeTextFile(
        file,
        [
          `local s = ${luaBytes(secret)}`,
          'if #s ~= 0 then error("the probe works") end',
        ].join("\n") + "\n",
      );
      assert.equal((await checkDnsdistConfig(file)).ok, false);
    }
  });
});

Deno.test("dnsdist --check-config accepts the rendered configuration of several topologies", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(join(dir, "tls"));
    // A real certificate and key: dnsdist's check does not open them, but
    // dnsdist does at start, and the files must look like what it takes.
    const openssl = await new Deno.Command("openssl", {
      args: [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        join(dir, "tls", "tls.key"),
        "-out",
        join(dir, "tls", "tls.crt"),
        "-days",
        "2",
        "-subj",
        "/CN=edge.test",
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.ok(openssl.success, new TextDecoder().decode(openssl.stderr));
    await Deno.writeFile(
      join(dir, "secret"),
      NASTY_SECRETS["NUL and every byte"]!,
    );
    const base = { "proxy-secret-file": join(dir, "secret") };
    const topologies: Record<string, Record<string, unknown>> = {
      "one backend": { backends: "127.0.0.1:5300" },
      "IPv4 and IPv6 backends, zones, IPv6 listener": {
        backends: "10.0.0.1,10.0.0.2:5300,[2001:db8::1]:53",
        "authoritative-zones": "example.com,example.net,in-addr.arpa",
        listen: ["0.0.0.0:53", "[::]:53"],
        acl: ["0.0.0.0/0", "::/0"],
      },
      "TLS, other API and console": {
        backends: "10.0.0.1:53",
        "tls-dir": join(dir, "tls"),
        api: "[::1]:9083",
        console: "127.0.0.2:6199",
      },
      "many backends": {
        backends: Array.from({ length: 20 }, (_, i) => `10.1.0.${i + 1}`)
          .join(","),
      },
    };
    for (const [what, flags] of Object.entries(topologies)) {
      const lua = renderDnsdistLua(
        topologyFromFlags({ ...base, ...flags }),
        generateCredentials(),
        { annotateCredentials: true },
      );
      const file = join(dir, "dnsdist.conf");
      await Deno.writeTextFile(file, lua);
      const check = await checkDnsdistConfig(file);
      assert.ok(check.ok, `${what}: ${check.output}`);
      assert.match(check.output, /Configuration .* OK!/);
    }
  });
});

Deno.test("the check fails where dnsdist 1.7 prints an error but exits 0", async () => {
  await withTempDir(async (dir) => {
    const file = join(dir, "bad.conf");
    await Deno.writeTextFile(
      file,
      'setSecurityPollSuffix("")\nnewServer({address="not-an-address"})\n',
    );
    const check = await checkDnsdistConfig(file);
    assert.equal(check.ok, false);
    assert.match(check.output, /Error creating new server/);
  });
});
