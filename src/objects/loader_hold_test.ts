import assert from "node:assert/strict";
import { join } from "node:path";
import { API_VERSION } from "../api/v1alpha1/meta.ts";
import { memoryLogger } from "../log/logger.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import { startSnapshotBuilder } from "../snapshot/builder.ts";
import { RebuildHold } from "../snapshot/rebuild_hold.ts";
import { startZoneController } from "../controller/zone_controller.ts";
import { openSqliteStore } from "../store/sqlite/sqlite_store.ts";
import type { Store } from "../store/store.ts";
import { createObjectsLoader } from "./loader.ts";
import {
  docs,
  eventually,
  groupYaml,
  storeFor,
  tempObjectsDir,
} from "./testdata/fixtures.ts";

Deno.test.sanitizer({ ops: true, resources: true });

/** `store`, noting whether `hold` was held at each apply and delete. */
function spying(store: Store, hold: RebuildHold) {
  const heldAtWrite: boolean[] = [];
  const spy = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== "apply" && prop !== "delete") {
        return typeof value === "function" ? value.bind(target) : value;
      }
      return (...args: unknown[]) => {
        heldAtWrite.push(hold.held);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { spy, heldAtWrite };
}

Deno.test("ObjectsLoader holds rebuilds from a pass's first write to its end, and not for a pass that writes nothing", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  const hold = new RebuildHold();
  let takes = 0;
  const take = hold.take.bind(hold);
  hold.take = () => (takes++, take());
  const { spy, heldAtWrite } = spying(store, hold);
  const loader = createObjectsLoader({ store: spy, dir: d.dir, hold });
  await d.write("a.yaml", groupYaml("a"));
  await d.write("b.yaml", docs(groupYaml("b"), groupYaml("c")));
  await loader.load();
  assert.deepEqual(heldAtWrite, [true, true, true]);
  assert.equal(hold.held, false, "released at the end of the pass");
  await loader.load();
  assert.equal(takes, 1, "an unchanged pass takes no hold");
  await d.remove("b.yaml");
  await loader.load();
  assert.deepEqual(heldAtWrite, [true, true, true, true, true]);
  assert.equal(takes, 2);
  assert.equal(hold.held, false);
});

const ZONE = `apiVersion: ${API_VERSION}
kind: DNSZone
metadata: { name: big-test }
spec:
  zoneName: big.test.
  type: primary
  soa: { mname: ns1.big.test., rname: hostmaster.big.test. }
  nameservers: [ns1.big.test.]
`;

/** `n` record sets of five A records each. */
function recordSets(n: number): string {
  return docs(
    ...Array.from({ length: n }, (_, i) =>
      `apiVersion: ${API_VERSION}
kind: DNSRecordSet
metadata: { name: r${i} }
spec:
  zoneRef: { name: big-test }
  endpoints:
${
        Array.from(
          { length: 5 },
          (_, j) =>
            `    - { dnsName: h${j}.r${i}.big.test, recordType: A, targets: ["10.0.${j}.${
              i % 250
            }"] }`,
        ).join("\n")
      }
`),
  );
}

Deno.test("ObjectsLoader with the snapshot builder and zone controller on sqlite: a file of many record sets is served once, complete and stamped", async () => {
  await using d = await tempObjectsDir();
  const store = await openSqliteStore(join(d.root, "state.db"), { node: "t" });
  const hold = new RebuildHold();
  const logger = memoryLogger("warn");
  const snapshots: Snapshot[] = [];
  const controller = startZoneController({ store, logger, hold });
  const builder = startSnapshotBuilder({
    store,
    nodeName: "t",
    version: "0",
    logger,
    hold,
    onSnapshot: (s) => snapshots.push(s),
  });
  try {
    await builder.synced;
    const loader = createObjectsLoader({ store, dir: d.dir, hold });
    await d.write("zone.yaml", ZONE);
    await loader.load();
    const records = (s: Snapshot) => s.zones[0]?.rrsets.length ?? 0;
    await eventually(() => snapshots.some((s) => records(s) === 2), 5000);
    await eventually(() => (snapshots.at(-1)?.zones[0]?.serial ?? 1) > 1);
    const before = snapshots.length;
    const stamped = snapshots.at(-1)!.zones[0]!.serial;
    await d.write("records.yaml", recordSets(300));
    await loader.load();
    await eventually(() => records(snapshots.at(-1)!) === 1502, 10_000);
    await eventually(
      () => snapshots.at(-1)!.zones[0]!.serial !== stamped,
      5000,
    );
    const during = snapshots.slice(before);
    assert.deepEqual(
      during.map(records),
      during.map(() => 1502),
      "no snapshot with the zone half loaded",
    );
    assert.equal(during.length, 1, "built once, with its new serial");
  } finally {
    await builder.stop();
    await controller.stop();
    await store.close();
  }
});
