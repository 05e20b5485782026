import assert from "node:assert/strict";
import { parseEndpoint } from "./address.ts";
import { parseBackendsFile } from "./backends_file.ts";
import { hashPassword } from "./credentials.ts";
import { proxySecretFrom } from "./proxy_secret.ts";
import {
  backendsFromList,
  DEFAULT_ACL,
  EdgeTopologyError,
  type TopologyFiles,
  topologyFromFlags,
} from "./topology.ts";

function filesWith(secret: Uint8Array | string, tls = false): TopologyFiles {
  return {
    readFile(path) {
      if (path !== "/s") throw new Deno.errors.NotFound(`no file ${path}`);
      return typeof secret === "string"
        ? new TextEncoder().encode(secret)
        : secret;
    },
    isReadableFile: (path) => tls && path.startsWith("/tls/"),
  };
}

const SECRET = "0123456789abcdef0123456789abcdef";

function fromFlags(flags: Record<string, unknown>, files = filesWith(SECRET)) {
  return topologyFromFlags(
    { "proxy-secret-file": "/s", ...flags },
    undefined,
    files,
  );
}

function refuses(
  flags: Record<string, unknown>,
  message: RegExp,
  files = filesWith(SECRET),
): void {
  assert.throws(
    () => fromFlags(flags, files),
    (e: unknown) => e instanceof EdgeTopologyError && message.test(e.message),
    JSON.stringify(flags),
  );
}

Deno.test("the defaults: listen 0.0.0.0:53, API and console on loopback, dnsdist's ACL, both pools with every backend", () => {
  const t = fromFlags({ backends: "10.0.0.1, 10.0.0.2:5300" });
  assert.deepEqual(t.listen, [{ host: "0.0.0.0", port: 53 }]);
  assert.deepEqual(t.api, { host: "127.0.0.1", port: 8083 });
  assert.deepEqual(t.console, { host: "127.0.0.1", port: 5199 });
  assert.deepEqual(t.acl, DEFAULT_ACL);
  assert.equal(t.tls, undefined);
  assert.deepEqual(t.authoritativeZones, []);
  assert.deepEqual(t.backends.map((b) => b.name), [
    "kudurru-10-0-0-1-53",
    "kudurru-10-0-0-2-5300",
  ]);
  assert.deepEqual(t.pools, [
    {
      name: "resolver",
      policy: "chashed",
      members: ["kudurru-10-0-0-1-53", "kudurru-10-0-0-2-5300"],
    },
    {
      name: "authoritative",
      policy: "leastOutstanding",
      members: ["kudurru-10-0-0-1-53", "kudurru-10-0-0-2-5300"],
    },
  ]);
  assert.deepEqual(t.proxySecret, new TextEncoder().encode(SECRET));
  assert.equal(t.healthCheck.name, "health.kudurru.internal.");
});

Deno.test("a backend's name and id depend on its address only", () => {
  const [a] = backendsFromList(["[2001:DB8:0::1]:53"]);
  const [b] = backendsFromList(["2001:db8::1"]);
  assert.deepEqual(a, b);
  assert.equal(a!.name, "kudurru-2001-db8--1-53");
  assert.match(
    a!.id,
    /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  );
  const [c] = backendsFromList(["2001:db8::1:54"]);
  assert.notEqual(c!.id, a!.id);
});

Deno.test("authoritative zones: lower case, fully qualified, each once", () => {
  const t = fromFlags({
    backends: "10.0.0.1",
    "authoritative-zones": "Example.com,example.com.,b.example",
  });
  assert.deepEqual(t.authoritativeZones, ["example.com.", "b.example."]);
});

Deno.test("--tls-dir gives DoT on 853 and DoH on 443 of each listen host", () => {
  const t = fromFlags(
    {
      backends: "10.0.0.1",
      listen: ["192.0.2.1:53", "192.0.2.1:5353", "[::]:53"],
      "tls-dir": "/tls",
    },
    filesWith(SECRET, true),
  );
  assert.deepEqual(t.tls, {
    certFile: "/tls/tls.crt",
    keyFile: "/tls/tls.key",
    dot: [{ host: "192.0.2.1", port: 853 }, { host: "::", port: 853 }],
    doh: [{ host: "192.0.2.1", port: 443 }, { host: "::", port: 443 }],
    dohPath: "/dns-query",
  });
});

Deno.test("flags that cannot work are refused with a message naming the flag", () => {
  refuses({}, /--backends needs at least one kudurru node/);
  refuses(
    { backends: "kudurru-1.example:53" },
    /not an IP address and port; dnsdist takes addresses, not host names/,
  );
  refuses({ backends: "10.0.0.1:99999" }, /no valid port/);
  refuses({ backends: "10.0.0.1,10.0.0.1:53" }, /are the same node/);
  refuses(
    { backends: "10.0.0.1", api: "0.0.0.0:8083" },
    /--api must be a loopback address/,
  );
  refuses(
    { backends: "10.0.0.1", api: "192.0.2.1:8083" },
    /--api must be a loopback address/,
  );
  refuses(
    { backends: "10.0.0.1", console: "[::]:5199" },
    /--console must be a loopback address/,
  );
  refuses(
    { backends: "10.0.0.1", listen: ["0.0.0.0"] },
    /--listen: "0.0.0.0" needs a port/,
  );
  refuses({ backends: "10.0.0.1", listen: ["127.0.0.1:8083"] }, /same socket/);
  refuses(
    { backends: "10.0.0.1", "authoritative-zones": "a b.example" },
    /is not a zone name/,
  );
  refuses({ backends: "10.0.0.1", acl: ["everyone"] }, /--acl "everyone"/);
  refuses(
    { backends: "10.0.0.1", "tls-dir": "/nowhere" },
    /must hold tls\.crt .* and tls\.key/,
  );
  refuses(
    { backends: "10.0.0.1", "proxy-secret-file": "" },
    /--proxy-secret-file is required/,
  );
  refuses(
    { backends: "10.0.0.1", "proxy-secret-file": "/missing" },
    /Cannot read the PROXYv2 secret file "\/missing"/,
  );
  refuses(
    { backends: "10.0.0.1" },
    /the secret is 31 bytes \(line ends not counted\); it needs at least 32/,
    filesWith("x".repeat(31) + "\r\n\n"),
  );
});

Deno.test("the secret is the file's bytes less trailing CR and LF", () => {
  const bytes = new Uint8Array([
    ...new TextEncoder().encode("\n" + "k".repeat(31) + "\r\nx"),
    0,
    13,
    10,
    10,
  ]);
  const secret = proxySecretFrom(bytes);
  assert.ok(secret instanceof Uint8Array);
  assert.deepEqual(secret, bytes.subarray(0, bytes.length - 3));
  assert.equal(
    typeof proxySecretFrom(new TextEncoder().encode("\n".repeat(40))),
    "string",
  );
});

Deno.test("endpoints: IPv4, bracketed and bare IPv6, default ports", () => {
  assert.deepEqual(parseEndpoint("10.0.0.1:53"), {
    host: "10.0.0.1",
    port: 53,
  });
  assert.deepEqual(parseEndpoint("[::1]:5300"), { host: "::1", port: 5300 });
  assert.deepEqual(parseEndpoint("::1", 53), { host: "::1", port: 53 });
  assert.deepEqual(parseEndpoint("[::1]", 53), { host: "::1", port: 53 });
  assert.match(parseEndpoint("10.0.0.1:0") as string, /port 0/);
  assert.match(parseEndpoint("[10.0.0.1]:53") as string, /not an IP address/);
  assert.match(parseEndpoint("010.0.0.1:53") as string, /not an IP address/);
});

Deno.test("a backends file: one per line, commas, comments", () => {
  assert.deepEqual(
    parseBackendsFile("# nodes\n10.0.0.1:53\n10.0.0.2 , [::1]:5300 # lab\n\n"),
    ["10.0.0.1:53", "10.0.0.2", "[::1]:5300"],
  );
  assert.deepEqual(parseBackendsFile("# none\n"), []);
});

Deno.test("hashPassword writes dnsdist's scrypt format", () => {
  const salt = new Uint8Array(16);
  const hash = hashPassword("secret", salt);
  assert.match(hash, /^\$scrypt\$ln=10,p=1,r=8\$A{22}==\$[A-Za-z0-9+/]{43}=$/);
  assert.equal(hashPassword("secret", salt), hash);
  assert.notEqual(hashPassword("secret"), hashPassword("secret"));
});
