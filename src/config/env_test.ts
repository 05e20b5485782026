import assert from "node:assert/strict";
import { applyEnvOverrides, readEnvOverrides } from "./env.ts";

const files: Record<string, string> = { "/run/secrets/pw": "s3cret\r\n" };
const readFile = (p: string) => {
  const text = files[p];
  if (text === undefined) {
    throw new Deno.errors.NotFound(`No such file: "${p}"`);
  }
  return text;
};

function valueOf(variable: string, text: string): unknown {
  const got = readEnvOverrides({ [variable]: text }, readFile);
  assert.deepEqual(got.problems, []);
  assert.equal(got.overrides.length, 1);
  return got.overrides[0]!.value;
}

function problemsOf(env: Record<string, string>): string[] {
  return readEnvOverrides(env, readFile).problems;
}

Deno.test("readEnvOverrides converts values per the key's type", async (t) => {
  const cases: [string, string, unknown][] = [
    ["KUDURRU_NODE__NAME", "node-a", "node-a"],
    ["KUDURRU_CACHE__MAXENTRIES", "1000", 1000],
    ["KUDURRU_CACHE__PREFETCH__THRESHOLD", "3", 3],
    ["KUDURRU_BLOCKING__ENABLED", "no", false],
    ["KUDURRU_BLOCKING__ENABLED", "YES", true],
    ["KUDURRU_BLOCKING__ENABLED", "0", false],
    ["KUDURRU_BLOCKING__ENABLED", "true", true],
    ["KUDURRU_BLOCKING__DEFAULTRESPONSE", "nxdomain", "nxdomain"],
    ["KUDURRU_CACHE__MAXTTL", "1h", "1h"],
    ["KUDURRU_UPSTREAMS__BOOTSTRAP", "1.1.1.1:53, 9.9.9.9:53", [
      "1.1.1.1:53",
      "9.9.9.9:53",
    ]],
    ["KUDURRU_LISTENERS__PROXYPROTOCOLFROM", "127.0.0.1/32,10.0.0.11/32", [
      "127.0.0.1/32",
      "10.0.0.11/32",
    ]],
    ["KUDURRU_LISTENERS__DNS", "0.0.0.0:5353", [{ address: "0.0.0.0:5353" }]],
    [
      "KUDURRU_LISTENERS__DOT",
      '[{"address":"0.0.0.0:853","tls":{"certFile":"c","keyFile":"k"}}]',
      [{
        address: "0.0.0.0:853",
        tls: { certFile: "c", keyFile: "k" },
      }],
    ],
    ["KUDURRU_LISTENERS__DNS", "0.0.0.0:53,[::]:53", [
      { address: "0.0.0.0:53" },
      { address: "[::]:53" },
    ]],
    ["KUDURRU_UPSTREAMS__CONDITIONAL", '{"corp.":"default"}', {
      "corp.": "default",
    }],
    ["KUDURRU_UPSTREAMS__BOOTSTRAP", "", []],
    ["KUDURRU_OBJECTSDIR", "/srv/objects", "/srv/objects"],
  ];
  for (const [variable, text, want] of cases) {
    await t.step(
      `${variable}=${text}`,
      () => assert.deepEqual(valueOf(variable, text), want),
    );
  }
});

Deno.test("readEnvOverrides matches keys case-insensitively", () => {
  const got = readEnvOverrides({ KUDURRU_cache__maxTtl: "1h" }, readFile);
  assert.equal(got.overrides[0]?.key, "cache.maxTTL");
});

Deno.test("readEnvOverrides reads _FILE variables and trims the line end", () => {
  const got = readEnvOverrides({
    KUDURRU_AUTH__BOOTSTRAP__ADMINPASSWORD_FILE: "/run/secrets/pw",
  }, readFile);
  assert.deepEqual(got.overrides, [{
    variable: "KUDURRU_AUTH__BOOTSTRAP__ADMINPASSWORD_FILE",
    key: "auth.bootstrap.adminPassword",
    path: ["auth", "bootstrap", "adminPassword"],
    value: "s3cret",
  }]);
});

Deno.test("readEnvOverrides does not take a key ending in FILE for a _FILE variant", () => {
  const got = readEnvOverrides({
    KUDURRU_LISTENERS__PROXYPROTOCOLSECRETFILE: "/run/secrets/pw",
  }, readFile);
  assert.equal(got.overrides[0]?.value, "/run/secrets/pw");
});

Deno.test("readEnvOverrides ignores variables without __ that are not near a setting", () => {
  const got = readEnvOverrides({
    KUDURRU_CONFIG: "/x.yaml",
    KUDURRU_DEBUG_CONFIG: "yes",
    KUDURRU_LOG_LEVEL: "debug",
    KUDURRU_ADMIN_PASSWORD_FILE: "/nope",
    KUDURRU_SOMETHING_ELSE: "1",
    PATH: "/bin",
  }, readFile);
  assert.deepEqual(got, { overrides: [], problems: [] });
});

Deno.test("readEnvOverrides rejects", async (t) => {
  const cases: [string, Record<string, string>, RegExp][] = [
    [
      "a variable naming no key",
      { KUDURRU_CACHE__MAXTLL: "1h" },
      /^KUDURRU_CACHE__MAXTLL: names no setting \(did you mean KUDURRU_CACHE__MAXTTL\?\)$/,
    ],
    [
      "a misspelt top-level setting",
      { KUDURRU_OBJECTDIR: "/srv/objects" },
      /^KUDURRU_OBJECTDIR: names no setting \(did you mean KUDURRU_OBJECTSDIR\?\)$/,
    ],
    [
      "a _FILE variable naming no key",
      { KUDURRU_NODE__NAM_FILE: "/x" },
      /did you mean KUDURRU_NODE__NAME_FILE\?/,
    ],
    [
      "an unreadable _FILE",
      { KUDURRU_NODE__NAME_FILE: "/missing" },
      /^KUDURRU_NODE__NAME_FILE: cannot read "\/missing": No such file/,
    ],
    ["a variable and its _FILE", {
      KUDURRU_NODE__NAME: "a",
      KUDURRU_NODE__NAME_FILE: "/run/secrets/pw",
    }, /set only one of them/],
    [
      "a non-number",
      { KUDURRU_CACHE__MAXENTRIES: "many" },
      /KUDURRU_CACHE__MAXENTRIES: "many" is not a number/,
    ],
    [
      "a non-boolean",
      { KUDURRU_BLOCKING__ENABLED: "maybe" },
      /is not a boolean/,
    ],
    [
      "bad JSON",
      { KUDURRU_LISTENERS__DOT: "[{oops" },
      /KUDURRU_LISTENERS__DOT: is not valid JSON/,
    ],
    [
      "a map without JSON",
      { KUDURRU_UPSTREAMS__CONDITIONAL: "corp.=default" },
      /must be JSON/,
    ],
  ];
  for (const [name, env, want] of cases) {
    await t.step(name, () => {
      const problems = problemsOf(env);
      assert.equal(problems.length, 1, problems.join("\n"));
      assert.match(problems[0]!, want);
    });
  }
});

Deno.test("applyEnvOverrides creates missing sections", () => {
  const raw: Record<string, unknown> = { cache: { maxTTL: "1h" } };
  applyEnvOverrides(raw, [
    {
      variable: "V",
      key: "cache.prefetch.threshold",
      path: ["cache", "prefetch", "threshold"],
      value: 3,
    },
    { variable: "W", key: "node.name", path: ["node", "name"], value: "a" },
  ]);
  assert.deepEqual(raw, {
    cache: { maxTTL: "1h", prefetch: { threshold: 3 } },
    node: { name: "a" },
  });
});
