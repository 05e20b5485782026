/**
 * The file-managed objects loader's steady state: a poll over 500 objects in
 * 10 files that have not changed. Also
 * the sqlite store's apply cost, which bounds how fast first loads and
 * `kudurru apply` can go.
 *
 *   deno task bench
 */
import { join } from "node:path";
import { createObjectsLoader } from "../src/objects/loader.ts";
import { createMemoryStore } from "../src/store/memory/memory_store.ts";
import { openSqliteStore } from "../src/store/sqlite/sqlite_store.ts";
import { newRegistry } from "../src/metrics/registry.ts";
import { API_VERSION, type KObject } from "../src/api/v1alpha1/meta.ts";

function recordSet(i: number): KObject {
  return {
    apiVersion: API_VERSION,
    kind: "DNSRecordSet",
    metadata: { name: `host-${i}`, namespace: "default" },
    spec: {
      zoneRef: { name: "example-org" },
      endpoints: [
        {
          dnsName: `host-${i}.example.org`,
          recordType: "A",
          targets: [`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`],
        },
        {
          dnsName: `host-${i}.example.org`,
          recordType: "TXT",
          targets: [`"owner=team-${i % 7}"`],
        },
      ],
    },
  };
}

function toYaml(objects: KObject[]): string {
  return objects.map((o) => JSON.stringify(o)).join("\n---\n");
}

const root = await Deno.makeTempDir({ prefix: "kudurru-bench-" });
const dir = join(root, "objects.d");
await Deno.mkdir(dir);
for (let file = 0; file < 10; file++) {
  const objects = Array.from(
    { length: 50 },
    (_, i) => recordSet(file * 50 + i),
  );
  await Deno.writeTextFile(join(dir, `records-${file}.yaml`), toYaml(objects));
}
const memory = createMemoryStore();
const loader = createObjectsLoader({
  store: memory,
  dir,
  registry: newRegistry(),
  pollIntervalMs: -1,
});
await loader.load(); // the first load creates; the benchmark measures the polls after it

Deno.bench(
  "objects loader: unchanged poll, 500 objects in 10 files (memory store)",
  async () => {
    await loader.load();
  },
);

const sqlite = await openSqliteStore(join(root, "state.db"));
let n = 0;
Deno.bench(
  "sqlite store: apply a new DNSRecordSet (one transaction with audit and feed rows)",
  async () => {
    await sqlite.apply(recordSet(100_000 + n++), { manager: "api" });
  },
);

globalThis.addEventListener("unload", () => {
  sqlite.close().finally(() => Deno.removeSync(root, { recursive: true }));
});
