import assert from "node:assert/strict";
import { join } from "node:path";
import { managerOf, MAX_OBJECTS_FILE_BYTES, readSources } from "./sources.ts";
import { groupYaml, tempObjectsDir } from "./testdata/fixtures.ts";

Deno.test("readSources puts the inline objects first, then *.yaml files by name", async () => {
  await using d = await tempObjectsDir();
  await d.write("b.yaml", "");
  await d.write("a.yaml", "");
  const r = await readSources({ inline: [], dir: d.dir });
  assert.deepEqual(r.sources.map((s) => s.name), [
    "kudurru.yaml",
    "objects.d/a.yaml",
    "objects.d/b.yaml",
  ]);
});

Deno.test("readSources names managers file:<source> and honours inlineSource", async () => {
  await using d = await tempObjectsDir();
  await d.write("zones.yaml", "");
  const r = await readSources({
    inline: [],
    inlineSource: "site.yaml",
    dir: d.dir + "/",
  });
  assert.deepEqual(r.sources.map((s) => s.manager), [
    "file:site.yaml",
    "file:objects.d/zones.yaml",
  ]);
  assert.equal(managerOf("objects.d/zones.yaml"), "file:objects.d/zones.yaml");
});

Deno.test("readSources reads *.yaml, *.yml and *.json files, by name, as kubectl apply -f dir/ does", async () => {
  await using d = await tempObjectsDir();
  await d.write("c.yaml", "");
  await d.write("b.yml", "");
  await d.write("a.json", "");
  const r = await readSources({ dir: d.dir });
  assert.deepEqual(r.sources.map((s) => s.name), [
    "objects.d/a.json",
    "objects.d/b.yml",
    "objects.d/c.yaml",
  ]);
});

Deno.test("readSources says which entries it does not read, but not dot files, backups or editor temp files", async () => {
  await using d = await tempObjectsDir();
  // 4913: the file vim creates to test that it may write in a directory.
  const noise = ["a.yaml~", "#a.yaml#", ".a.yaml.swp", "4913", "a.yaml.tmp"];
  for (const name of [".a.yaml", ...noise]) await d.write(name, "");
  await Deno.mkdir(join(d.dir, "sub"));
  await Deno.writeTextFile(join(d.dir, "sub", "inner.yaml"), groupYaml("a"));
  await Deno.mkdir(join(d.dir, "dir.yaml"));
  await Deno.symlink("sub", join(d.dir, "linked.yaml"));
  await d.write("notes.txt", "");
  const r = await readSources({ dir: d.dir });
  assert.deepEqual(r.sources, []);
  assert.deepEqual(
    r.diagnoses.map((x) => [x.severity, x.reason, x.source, x.message]),
    [
      [
        "info",
        "Ignored",
        "objects.d/dir.yaml/",
        'Ignored "dir.yaml/": subdirectories are not read',
      ],
      [
        "info",
        "Ignored",
        "objects.d/linked.yaml/",
        'Ignored "linked.yaml/": subdirectories are not read',
      ],
      [
        "info",
        "Ignored",
        "objects.d/notes.txt",
        'Ignored "notes.txt": only *.yaml, *.yml and *.json files are read',
      ],
      [
        "info",
        "Ignored",
        "objects.d/sub/",
        'Ignored "sub/": subdirectories are not read',
      ],
    ],
  );
});

Deno.test("readSources follows symlinks the way ConfigMap mounts lay files out", async () => {
  await using d = await tempObjectsDir();
  await Deno.mkdir(join(d.dir, "..2024_01_01"));
  await Deno.writeTextFile(
    join(d.dir, "..2024_01_01", "zones.yaml"),
    "kind: x\n",
  );
  await Deno.symlink("..2024_01_01", join(d.dir, "..data"));
  await Deno.symlink("..data/zones.yaml", join(d.dir, "zones.yaml"));
  const r = await readSources({ dir: d.dir });
  assert.equal(r.sources.length, 1);
  const [s] = r.sources;
  assert.equal(s?.kind === "file" ? s.text : undefined, "kind: x\n");
});

Deno.test("readSources protects the objects of a missing directory, and says so", async () => {
  await using d = await tempObjectsDir();
  const r = await readSources({ dir: join(d.root, "nope") });
  assert.deepEqual(r.sources, []);
  assert.deepEqual(r.protectedPrefixes, ["file:nope/"]);
  assert.equal(r.diagnoses[0]?.severity, "info");
  assert.match(r.diagnoses[0]!.message, /does not exist/);
});

Deno.test("readSources refuses a file over MAX_OBJECTS_FILE_BYTES and keeps its objects", async () => {
  await using d = await tempObjectsDir();
  const path = join(d.dir, "huge.yaml");
  const file = await Deno.open(path, { write: true, create: true });
  await file.truncate(MAX_OBJECTS_FILE_BYTES + 1); // sparse: nothing written
  file.close();
  const r = await readSources({ dir: d.dir });
  assert.equal(r.sources[0]?.kind, "unreadable");
  assert.match(
    r.diagnoses[0]!.message,
    /it is 4194305 bytes; a file of objects is at most 4194304 \(4 MiB\): split its objects into several files/,
  );
});

Deno.test("readSources protects everything under an unreadable directory", async () => {
  await using d = await tempObjectsDir();
  await Deno.remove(d.dir);
  await Deno.writeTextFile(d.dir, "not a directory"); // ENOTDIR, even for root
  const r = await readSources({ dir: d.dir });
  assert.deepEqual(r.protectedPrefixes, ["file:objects.d/"]);
  assert.equal(r.diagnoses[0]?.reason, "ReadFailed");
  assert.equal(r.diagnoses[0]?.source, "objects.d/");
});

Deno.test("readSources reports a file it cannot read and keeps it as a source", async () => {
  await using d = await tempObjectsDir();
  await Deno.symlink("missing-target.yaml", join(d.dir, "dangling.yaml"));
  const r = await readSources({ dir: d.dir });
  assert.equal(r.sources[0]?.kind, "unreadable");
  assert.equal(r.diagnoses[0]?.reason, "ReadFailed");
  assert.equal(r.diagnoses[0]?.source, "objects.d/dangling.yaml");
});
