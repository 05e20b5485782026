/**
 * export and restore on damaged files: a backup cut short (a full disk, a
 * dropped pipe) must be refused before anything is written, and a failed
 * export must not destroy the backup it was replacing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./run.ts";
import { bufferIO } from "./command.ts";

const OBJECTS = `apiVersion: kudurru.io/v1alpha1
kind: DNSZone
metadata: { name: example-org }
spec: { zoneName: example.org., type: primary }
---
apiVersion: kudurru.io/v1alpha1
kind: DNSZone
metadata: { name: example-net }
spec: { zoneName: example.net., type: primary }
---
apiVersion: kudurru.io/v1alpha1
kind: ClientGroup
metadata: { name: kids }
spec: { clients: [{ cidr: 10.0.20.0/24, name: Kids VLAN }] }
`;

async function cli(args: string[], stdin = "") {
  const b = bufferIO(stdin);
  const code = await runCli(args, b.io);
  return { code, stdout: b.stdout(), stderr: b.stderr() };
}

/** Runs `fn` with a data directory holding OBJECTS and an empty one. */
async function withExport(
  fn: (dirs: { root: string; full: string; empty: string }) => Promise<void>,
) {
  const root = await Deno.makeTempDir({ prefix: "kudurru-export-" });
  try {
    const full = join(root, "full");
    const applied = await cli(
      ["apply", "-f", "-", "--data-dir", full],
      OBJECTS,
    );
    assert.equal(applied.code, 0, applied.stderr);
    await fn({ root, full, empty: join(root, "empty") });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** The export as a full disk leaves it: the ClientGroup, last, is missing. */
function cutBeforeLastItem(text: string): string {
  return text.slice(0, text.lastIndexOf("\n  - apiVersion:") + 1);
}

async function zonesIn(dir: string): Promise<string> {
  return (await cli(["get", "zones", "--data-dir", dir])).stdout;
}

Deno.test("kudurru restore refuses an export cut short and writes nothing", async () => {
  await withExport(async ({ root, full, empty }) => {
    const backup = join(root, "backup.yaml");
    assert.equal(
      (await cli(["export", "-o", backup, "--data-dir", full])).code,
      0,
    );
    await Deno.writeTextFile(
      backup,
      cutBeforeLastItem(await Deno.readTextFile(backup)),
    );
    const got = await cli(["restore", backup, "--data-dir", empty]);
    assert.equal(got.code, 1, got.stdout);
    assert.match(
      got.stderr,
      /^kudurru restore: Cannot use ".*backup\.yaml": it is cut short: 3 items expected, 2 found .*probably written on a full disk/,
    );
    assert.doesNotMatch(await zonesIn(empty), /example/);
  });
});

Deno.test("kudurru restore - refuses an export cut short on standard input", async () => {
  await withExport(async ({ full, empty }) => {
    const exported = await cli(["export", "--data-dir", full]);
    const got = await cli(
      ["restore", "-", "--data-dir", empty],
      cutBeforeLastItem(exported.stdout),
    );
    assert.equal(got.code, 1, got.stdout);
    assert.match(got.stderr, /Cannot use standard input: it is cut short/);
  });
});

Deno.test("kudurru apply -f refuses an export cut short", async () => {
  await withExport(async ({ full, empty }) => {
    const exported = await cli(["export", "--safe", "--data-dir", full]);
    const got = await cli(
      ["apply", "-f", "-", "--data-dir", empty],
      cutBeforeLastItem(exported.stdout),
    );
    assert.equal(got.code, 1, got.stdout);
    assert.match(
      got.stderr,
      /^kudurru apply: Cannot use standard input: it is cut short/,
    );
    assert.doesNotMatch(await zonesIn(empty), /example/);
  });
});

Deno.test("kudurru restore refuses an edited export until its first line is deleted", async () => {
  await withExport(async ({ full, empty }) => {
    const exported = (await cli(["export", "--data-dir", full])).stdout;
    const lastItem = exported.lastIndexOf("\n  - apiVersion:") + 1;
    const end = exported.lastIndexOf("# end of kudurru export");
    const edited = exported.slice(0, lastItem) + exported.slice(end);
    const refused = await cli(["restore", "-", "--data-dir", empty], edited);
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(
      refused.stderr,
      /its first line promises 3 items, but it holds 2: it was edited after the export; to use it anyway, delete its first line/,
    );
    const taken = await cli(
      ["restore", "-", "--data-dir", empty],
      edited.slice(edited.indexOf("\n") + 1),
    );
    assert.equal(taken.code, 0, taken.stderr);
    assert.match(await zonesIn(empty), /example-net/);
  });
});

Deno.test("kudurru restore takes a List without the marker lines, with a note", async () => {
  await withExport(async ({ full, empty }) => {
    const exported = (await cli(["export", "--data-dir", full])).stdout;
    const unmarked = exported.split("\n").filter((l) => !l.startsWith("#"))
      .join("\n");
    const got = await cli(["restore", "-", "--data-dir", empty], unmarked);
    assert.equal(got.code, 0, got.stderr);
    assert.match(
      got.stderr,
      /^note: standard input lacks the first and last lines of a kudurru export .* cannot be checked for being complete\n$/,
    );
    assert.match(await zonesIn(empty), /example-org/);
  });
});

Deno.test("kudurru export -o writes a new file and renames it over the old one", async () => {
  await withExport(async ({ root, full }) => {
    const backup = join(root, "backup.yaml");
    await Deno.writeTextFile(backup, "the earlier backup\n");
    // A hard link, as rotating backup tools make, still names the old file:
    // export never opens it for writing, so a failure cannot cut it short.
    await Deno.link(backup, join(root, "backup.yaml.1"));
    const got = await cli(["export", "-o", backup, "--data-dir", full]);
    assert.equal(got.code, 0, got.stderr);
    assert.match(await Deno.readTextFile(backup), /kind: ClientGroup/);
    assert.equal(
      await Deno.readTextFile(join(root, "backup.yaml.1")),
      "the earlier backup\n",
    );
  });
});

Deno.test("kudurru restore refuses an empty file", async () => {
  const got = await cli([
    "restore",
    "-",
    "--data-dir",
    "/nonexistent-kudurru-data",
  ], "\n");
  assert.equal(got.code, 1);
  assert.match(
    got.stderr,
    /^kudurru restore: Cannot use standard input: it is empty; it was probably written on a full disk/,
  );
});
