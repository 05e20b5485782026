import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { memoryLogger } from "../log/logger.ts";
import { zoneFromText } from "../testing/zone_text.ts";
import { JOURNAL_SCHEMA_SQL, ZoneJournal } from "../zone/journal.ts";
import type { ZoneAccessPolicy, ZoneContent } from "../zone/types.ts";
import type { Notifier, NotifyTarget } from "./notify_out.ts";
import { notifyTargets, zoneChangeHandler } from "./zone_changes.ts";

function version(
  serial: number,
  address: string,
  access: Partial<ZoneAccessPolicy> = {},
): ZoneContent {
  return {
    ...zoneFromText("example.org.", [
      `example.org. 3600 IN SOA ns1.example.org. hostmaster.example.org. ${serial} 7200 3600 1209600 300`,
      "example.org. 3600 IN NS ns1.example.org.",
      "example.org. 3600 IN NS ns2.example.org.",
      "example.org. 3600 IN NS ns.elsewhere.test.",
      "ns1.example.org. 3600 IN A 192.0.2.53",
      "ns2.example.org. 3600 IN AAAA 2001:db8::53",
      `www.example.org. 300 IN A ${address}`,
    ]),
    serial,
    access: { queryAccess: "allow", zoneTransfer: "deny", ...access },
  };
}

Deno.test("notifyTargets: the zone's name servers it holds addresses of, the listed targets, or both, each once", () => {
  const show = (targets: NotifyTarget[]) =>
    targets.map((t) => `${t.address} ${t.port}`);
  assert.deepEqual(show(notifyTargets(version(1, "192.0.2.1"))), []);
  assert.deepEqual(
    show(notifyTargets(version(1, "192.0.2.1", { notify: "zoneNameServers" }))),
    ["192.0.2.53 53", "2001:db8::53 53"],
  );
  assert.deepEqual(
    show(notifyTargets(version(1, "192.0.2.1", {
      notify: "both",
      notifyTargets: ["192.0.2.53", "198.51.100.7:5353", "[2001:db8::9]:53"],
    }))),
    ["192.0.2.53 53", "2001:db8::53 53", "198.51.100.7 5353", "2001:db8::9 53"],
  );
});

Deno.test("zoneChangeHandler records each change in the journal and notifies, signed with the zone's transfer key", async () => {
  const dir = await Deno.makeTempDir();
  const db = new DatabaseSync(join(dir, "journal.db"));
  db.exec(JOURNAL_SCHEMA_SQL);
  const journal = new ZoneJournal(db);
  const sent: {
    zone: string;
    serial: number;
    targets: NotifyTarget[];
    key?: string;
  }[] = [];
  const notifier = {
    notify(zone, soa, targets, key) {
      sent.push({
        zone,
        serial: (soa.rdata[0] as { serial: number }).serial,
        targets,
        ...(key && { key: key.name }),
      });
    },
  } as Pick<Notifier, "notify"> as Notifier;
  const key = {
    ref: "xfr",
    name: "xfr.example.",
    algorithm: "hmac-sha256" as const,
    secret: new Uint8Array(32),
  };
  const changes = zoneChangeHandler({
    logger: memoryLogger(),
    journal,
    notifier,
    keys: () => [key],
  });
  const onNewSerial = changes.onNewSerial;
  /** The listeners serve `content`: its NOTIFY goes. */
  const served = (content: ZoneContent) =>
    changes.onSnapshot({ zones: [content] });
  const access = {
    notify: "specified" as const,
    notifyTargets: ["127.0.0.1:5300"],
    transferTSIGKeyRefs: ["xfr"],
  };
  try {
    onNewSerial("example.org.", undefined, version(10, "192.0.2.1", access));
    served(version(10, "192.0.2.1", access));
    onNewSerial(
      "example.org.",
      version(10, "192.0.2.1", access),
      version(11, "192.0.2.2", access),
    );
    // Not before the listeners serve it.
    served(version(10, "192.0.2.1", access));
    assert.equal(sent.length, 1);
    served(version(11, "192.0.2.2", access));
    const diffs = journal.since("example.org.", 10, 11)!;
    assert.equal(diffs.length, 1);
    assert.deepEqual(
      [diffs[0]!.removed[0]!.rdata, diffs[0]!.added[0]!.rdata],
      [[{ type: "A", address: "192.0.2.1" }], [{
        type: "A",
        address: "192.0.2.2",
      }]],
    );
    assert.deepEqual(sent.map((s) => [s.serial, s.key, s.targets[0]?.port]), [
      [10, "xfr.example.", 5300],
      [11, "xfr.example.", 5300],
    ]);
    // A change this leader did not see begin: no chain from before it.
    onNewSerial("example.org.", undefined, version(12, "192.0.2.3", access));
    assert.equal(journal.since("example.org.", 10, 12), undefined);
    // Stopped with a NOTIFY waiting: none goes.
    changes.stop();
    changes.onSnapshot({ zones: [version(12, "192.0.2.3", access)] });
    assert.equal(sent.length, 2);
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("zoneChangeHandler keeps which secondaries failed the last NOTIFY, until they acknowledge", () => {
  const told: string[] = [];
  const changes = zoneChangeHandler({
    logger: memoryLogger(),
    keys: () => [],
    onNotifyFailures: (zone) => told.push(zone),
  });
  const target = { address: "192.0.2.53", port: 53 };
  const result = (outcome: "acknowledged" | "failed", error?: string) => ({
    zone: "example.org.",
    target,
    serial: 7,
    outcome,
    attempts: 6,
    ...(error && { error }),
  });
  assert.equal(changes.notifyFailure("example.org."), undefined);
  changes.noteResult(result("failed", "timeout"));
  assert.equal(
    changes.notifyFailure("example.org."),
    "NOTIFY of the last serial got no acknowledgment from 192.0.2.53 port 53 (timeout)",
  );
  // The same failure again changes nothing; an acknowledgment clears it.
  changes.noteResult(result("failed", "timeout"));
  changes.noteResult(result("acknowledged"));
  assert.equal(changes.notifyFailure("example.org."), undefined);
  assert.deepEqual(told, ["example.org.", "example.org."]);
});
