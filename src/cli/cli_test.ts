import assert from "node:assert/strict";
import { join } from "node:path";
import YAML from "yaml";
import { runCli } from "./run.ts";
import { bufferIO } from "./command.ts";

const OBJECTS = `apiVersion: kudurru.io/v1alpha1
kind: DNSZone
metadata: { name: example-org, labels: { team: net } }
spec: { zoneName: example.org., type: primary }
---
apiVersion: kudurru.io/v1alpha1
kind: DNSRecordSet
metadata: { name: www, namespace: apps }
spec:
  zoneRef: { name: example-org }
  endpoints:
  - { dnsName: www.example.org, recordType: A, targets: ["192.0.2.1"] }
---
apiVersion: kudurru.io/v1alpha1
kind: ClientGroup
metadata: { name: kids }
spec: { clients: [{ cidr: 10.0.20.0/24, name: Kids VLAN }] }
`;

async function withDataDirs(fn: (a: string, b: string) => Promise<void>) {
  const root = await Deno.makeTempDir({ prefix: "kudurru-cli-" });
  try {
    await fn(join(root, "a"), join(root, "b"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

async function cli(args: string[], stdin = "") {
  const b = bufferIO(stdin);
  const code = await runCli(args, b.io);
  return { code, stdout: b.stdout(), stderr: b.stderr() };
}

Deno.test("kudurru apply creates, then reports unchanged objects", async () => {
  await withDataDirs(async (dir) => {
    const first = await cli(["apply", "-f", "-", "--data-dir", dir], OBJECTS);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /DNSZone\/example-org created/);
    assert.match(first.stdout, /DNSRecordSet\/apps\/www created/);
    const again = await cli(["apply", "-f", "-", "--data-dir", dir], OBJECTS);
    assert.match(again.stdout, /DNSZone\/example-org unchanged/);
  });
});

Deno.test("kudurru apply names the invalid field and exits 1", async () => {
  await withDataDirs(async (dir) => {
    const bad = OBJECTS.replace(
      'targets: ["192.0.2.1"]',
      'targets: ["192.0.2.300"]',
    );
    const got = await cli(["apply", "-f", "-", "--data-dir", dir], bad);
    assert.equal(got.code, 1);
    assert.match(got.stderr, /spec\.endpoints\[0\]\.targets\[0\]/);
    assert.match(
      got.stdout,
      /DNSZone\/example-org created/,
      "valid documents still apply",
    );
  });
});

Deno.test("kudurru get prints a table, YAML and JSON", async () => {
  await withDataDirs(async (dir) => {
    await cli(["apply", "-f", "-", "--data-dir", dir], OBJECTS);
    const table = await cli(["get", "zones", "--data-dir", dir]);
    assert.match(
      table.stdout,
      /^NAME\s+MANAGED BY\s+GENERATION\nexample-org\s+api\s+1\n$/,
    );
    const one = await cli([
      "get",
      "rrset",
      "www",
      "-n",
      "apps",
      "-o",
      "yaml",
      "--data-dir",
      dir,
    ]);
    assert.equal(
      YAML.parse(one.stdout).spec.endpoints[0].targets[0],
      "192.0.2.1",
    );
    const json = await cli([
      "get",
      "clientgroups",
      "-A",
      "-o",
      "json",
      "--data-dir",
      dir,
    ]);
    assert.deepEqual(
      JSON.parse(json.stdout).items.map((o: { metadata: { name: string } }) =>
        o.metadata.name
      ),
      ["kids"],
    );
  });
});

Deno.test("kudurru get reports a missing object with exit code 1", async () => {
  await withDataDirs(async (dir) => {
    await Deno.mkdir(dir);
    const got = await cli(["get", "zone", "nope", "--data-dir", dir]);
    assert.equal(got.code, 1);
    assert.match(got.stderr, /DNSZone "nope" not found/);
  });
});

Deno.test("kudurru get, export and delete do not create a data directory that is not there", async () => {
  await withDataDirs(async (dir) => {
    for (
      const args of [["get", "zones"], ["export"], ["delete", "zone", "x"]]
    ) {
      const got = await cli([...args, "--data-dir", dir]);
      assert.equal(got.code, 1, args.join(" "));
      assert.match(got.stderr, /No data directory at .*check --data-dir/);
    }
    await assert.rejects(Deno.stat(dir), Deno.errors.NotFound);
  });
});

Deno.test("kudurru export and restore round-trip every object", async () => {
  await withDataDirs(async (a, b) => {
    await cli(["apply", "-f", "-", "--data-dir", a], OBJECTS);
    const backup = join(a, "..", "backup.yaml");
    const exported = await cli(["export", "-o", backup, "--data-dir", a]);
    assert.equal(exported.code, 0, exported.stderr);
    const restored = await cli(["restore", backup, "--data-dir", b]);
    assert.equal(restored.code, 0, restored.stderr);
    const before = YAML.parse(await Deno.readTextFile(backup));
    const after = YAML.parse((await cli(["export", "--data-dir", b])).stdout);
    const strip = (o: { metadata: Record<string, unknown> }) => {
      const { resourceVersion: _rv, ...metadata } = o.metadata;
      return { ...o, metadata };
    };
    assert.equal(before.items.length, 3);
    assert.deepEqual(after.items.map(strip), before.items.map(strip));
  });
});

Deno.test("kudurru export --safe is YAML that apply accepts", async () => {
  await withDataDirs(async (a, b) => {
    await cli(["apply", "-f", "-", "--data-dir", a], OBJECTS);
    const safe = await cli(["export", "--safe", "--data-dir", a]);
    assert.doesNotMatch(
      safe.stdout,
      /uid:|resourceVersion:|creationTimestamp:/,
    );
    const applied = await cli(
      ["apply", "-f", "-", "--data-dir", b],
      safe.stdout,
    );
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /DNSZone\/example-org created/);
  });
});

Deno.test("kudurru delete refuses an object another manager owns and says where to change it", async () => {
  await withDataDirs(async (dir) => {
    await cli(["apply", "-f", "-", "--data-dir", dir], OBJECTS);
    const seeded = await cli(
      ["restore", "-", "--data-dir", dir],
      YAML.stringify({
        apiVersion: "v1",
        kind: "List",
        items: [{
          apiVersion: "kudurru.io/v1alpha1",
          kind: "DNSZone",
          metadata: { name: "filed", managedBy: "file:objects.d/zones.yaml" },
          spec: { zoneName: "filed.example.", type: "primary" },
        }],
      }),
    );
    assert.equal(seeded.code, 0, seeded.stderr);
    const refused = await cli(["delete", "zone", "filed", "--data-dir", dir]);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /managed by file:objects\.d\/zones\.yaml.*edit or remove it in objects\.d\/zones\.yaml/,
    );
    const deleted = await cli([
      "delete",
      "zone",
      "example-org",
      "--data-dir",
      dir,
    ]);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(deleted.stdout, "DNSZone/example-org deleted\n");
    await cli(["apply", "-f", "-", "--data-dir", dir], OBJECTS);
    const rrset = await cli([
      "delete",
      "rrset",
      "www",
      "-n",
      "apps",
      "--data-dir",
      dir,
    ]);
    assert.equal(
      rrset.stdout,
      "DNSRecordSet/apps/www deleted\n",
      "with its namespace",
    );
  });
});

Deno.test("kudurru usage errors exit 2", async (t) => {
  const cases: [string[], RegExp][] = [
    [["nope"], /unknown command "nope"/],
    [["get"], /name a KIND/],
    [["get", "zonez", "--data-dir", "/nonexistent"], /unknown kind "zonez"/],
    [["apply"], /-f FILE/],
    [["export", "--bogus"], /--bogus/],
    [["help", "nope"], /unknown command "nope"/],
    [["get", "zones", "--data-dir", ""], /--data-dir needs a directory/],
    [
      ["get", "zone", "x", "-A", "--data-dir", "/nonexistent"],
      /-A lists every namespace/,
    ],
    [
      ["export", "-o", "json", "--data-dir", "/nonexistent"],
      /-o names the file to write/,
    ],
    // Node's parser messages in kudurru's words, without their hints.
    [
      ["querylog", "--limit", "-1"],
      /: --limit needs a value, but "-1" follows it \(for a value that starts with "-", write --limit=VALUE\)\nUsage:/,
    ],
    [
      ["apply", "-f", "--data-dir", "/nonexistent"],
      /kudurru apply: -f needs a value, but "--data-dir" follows it \(.*--filename=VALUE\)\nUsage:/,
    ],
    [["apply", "-f"], /kudurru apply: -f \(--filename\) needs a value\nUsage:/],
    [["get", "zones", "--data-dir"], /kudurru get: --data-dir needs a value\n/],
    [["get", "-x"], /kudurru get: Unknown option '-x'\.\nUsage:/],
  ];
  for (const [args, message] of cases) {
    await t.step(args.join(" "), async () => {
      const got = await cli(args);
      assert.equal(got.code, 2);
      assert.match(got.stderr, message);
    });
  }
});

Deno.test("kudurru help lists every command and shows one command's usage", async () => {
  const all = await cli(["help"]);
  for (
    const name of [
      "serve",
      "version",
      "config",
      "get",
      "apply",
      "delete",
      "export",
      "restore",
      "cache",
      "blocking",
      "health",
      "querylog",
      "stats",
      "admin",
    ]
  ) {
    assert.match(all.stdout, new RegExp(`^  ${name} `, "m"));
  }
  const one = await cli(["help", "apply"]);
  assert.match(one.stdout, /kudurru apply -f FILE/);
  const version = await cli(["version"]);
  assert.match(version.stdout, /^kudurru \d+\.\d+\.\d+/);
});
