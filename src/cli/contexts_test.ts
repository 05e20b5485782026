import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type ContextsFile,
  contextsPath,
  parseContexts,
  pickContext,
  readContexts,
  withContext,
  writeContexts,
} from "./contexts.ts";

const TOKEN = "kdr_abcdefghijkl_secretsecretsecret";

async function inTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-contexts-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("contextsPath: XDG_CONFIG_HOME when absolute, else HOME/.config, else an error", () => {
  assert.equal(
    contextsPath(env({ XDG_CONFIG_HOME: "/x/cfg", HOME: "/home/u" })),
    "/x/cfg/kudurru/contexts.yaml",
  );
  // The XDG spec: a relative XDG_CONFIG_HOME is ignored.
  assert.equal(
    contextsPath(env({ XDG_CONFIG_HOME: "cfg", HOME: "/home/u" })),
    "/home/u/.config/kudurru/contexts.yaml",
  );
  assert.equal(
    contextsPath(env({ HOME: "/home/u" })),
    "/home/u/.config/kudurru/contexts.yaml",
  );
  assert.throws(() => contextsPath(env({})), /set HOME \(or XDG_CONFIG_HOME\)/);
});

Deno.test("writeContexts and readContexts: a round trip, mode 0600 in a 0700 directory", async () => {
  await inTempDir(async (dir) => {
    const path = join(dir, "cfg", "kudurru", "contexts.yaml");
    assert.deepEqual(await readContexts(path), { contexts: [] });
    const file: ContextsFile = {
      current: "home",
      contexts: [
        { name: "home", server: "http://127.0.0.1:8080", token: TOKEN },
        {
          name: "office",
          server: "https://dns.example.net:8443",
          token: TOKEN,
          caFile: "/etc/ca.pem",
        },
      ],
    };
    await writeContexts(path, file);
    assert.deepEqual(await readContexts(path), file);
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    assert.equal(
      (await Deno.stat(join(dir, "cfg", "kudurru"))).mode! & 0o777,
      0o700,
    );
    assert.match(await Deno.readTextFile(path), /^# kudurru CLI contexts/);
    // Nothing but the file: the temporary file was renamed over it.
    assert.deepEqual(
      [...Deno.readDirSync(join(dir, "cfg", "kudurru"))].map((e) => e.name),
      ["contexts.yaml"],
    );
  });
});

Deno.test("writeContexts narrows a contexts file made readable by others to 0600", async () => {
  await inTempDir(async (dir) => {
    const path = join(dir, "contexts.yaml");
    await Deno.writeTextFile(path, "contexts: []\n");
    await Deno.chmod(path, 0o644);
    await writeContexts(path, {
      current: "a",
      contexts: [{ name: "a", server: "http://127.0.0.1:1", token: TOKEN }],
    });
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    assert.equal((await readContexts(path)).current, "a");
  });
});

Deno.test("readContexts: a broken file is refused with its path, the fault and what to do", async () => {
  await inTempDir(async (dir) => {
    const path = join(dir, "contexts.yaml");
    const cases: [string, RegExp][] = [
      ["contexts: [\n  - name: a\n", /it is not YAML: .*line/],
      ["- a\n- b\n", /it must be a map with current and contexts/],
      ["contexts: {}\n", /contexts must be a list/],
      ["current: 3\ncontexts: []\n", /current must be the name of a context/],
      [
        "contexts:\n  - name: a\n    server: http://x\n",
        /contexts\[0\]\.token must be a text/,
      ],
      [
        "contexts:\n  - {name: a, server: http://x, token: t, tokn: u}\n",
        /contexts\[0\] has an unknown key "tokn"/,
      ],
      [
        "contexts:\n  - {name: a, server: http://x, token: t}\n  - {name: a, server: http://y, token: t}\n",
        /two contexts are named "a"/,
      ],
      ["contexts: []\nextra: 1\n", /unknown key "extra"/],
    ];
    for (const [text, fault] of cases) {
      await Deno.writeTextFile(path, text);
      await assert.rejects(readContexts(path), (err: Error) => {
        assert.match(
          err.message,
          new RegExp(`^"${path}" is not a valid contexts file: `),
        );
        assert.match(err.message, fault);
        assert.match(
          err.message,
          /fix it, or remove it and run kudurru login again$/,
        );
        return true;
      }, text);
    }
  });
});

Deno.test("parseContexts: an empty file has no contexts", () => {
  assert.deepEqual(parseContexts("", "f"), { contexts: [] });
  assert.deepEqual(parseContexts("# only a comment\n", "f"), { contexts: [] });
});

Deno.test("pickContext: the current one, a named one, or a message saying what to do", () => {
  const a = { name: "a", server: "http://127.0.0.1:1", token: TOKEN };
  const b = { name: "b", server: "http://127.0.0.1:2", token: TOKEN };
  const file = withContext(withContext({ contexts: [] }, a), b);
  assert.throws(
    () => pickContext({ contexts: [] }),
    /not logged in to a server: run kudurru login/,
  );
  assert.throws(
    () => pickContext(file),
    /no current context: choose one with kudurru context use NAME \(a, b\)/,
  );
  assert.throws(
    () => pickContext(file, "c"),
    /there is no context "c" \(there are: a, b\)/,
  );
  assert.equal(pickContext({ ...file, current: "b" }), b);
  assert.equal(pickContext({ ...file, current: "b" }, "a"), a);
  // withContext replaces a context of the same name.
  const again = withContext(file, { ...a, server: "http://127.0.0.1:3" });
  assert.deepEqual(again.contexts.map((c) => c.server), [
    "http://127.0.0.1:2",
    "http://127.0.0.1:3",
  ]);
});
