import assert from "node:assert/strict";
import { join } from "node:path";
import { LOCAL_DB_FILE, openLocalDb } from "../server/local_db.ts";
import { rrsetsFromText } from "../testing/zone_text.ts";
import { SecondaryCopies } from "../transfer/secondary_copies.ts";
import { bufferIO } from "./command.ts";
import { runCli } from "./run.ts";

const OBJECTS = `apiVersion: kudurru.io/v1alpha1
kind: DNSZone
metadata: { name: home }
spec: { zoneName: home.test., type: primary }
---
apiVersion: kudurru.io/v1alpha1
kind: DNSRecordSet
metadata: { name: nas }
spec:
  zoneRef: { name: home }
  endpoints: [{ dnsName: nas.home.test, recordType: A, targets: [192.168.1.10] }]
---
apiVersion: kudurru.io/v1alpha1
kind: DNSZone
metadata: { name: mirror }
spec:
  zoneName: mirror.test.
  type: secondary
  secondary: { primaries: [192.0.2.53] }
`;

async function cli(args: string[], stdin = "") {
  const b = bufferIO(stdin);
  const code = await runCli(args, b.io);
  return { code, stdout: b.stdout(), stderr: b.stderr() };
}

Deno.test("kudurru zonefile prints a primary zone from its records, and a secondary zone's copy read-only", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-zonefile-" });
  try {
    const applied = await cli(["apply", "-f", "-", "--data-dir", dir], OBJECTS);
    assert.equal(applied.code, 0, applied.stderr);

    const primary = await cli(["zonefile", "home", "--data-dir", dir]);
    assert.equal(primary.code, 0, primary.stderr);
    assert.match(primary.stdout, /^\$ORIGIN home\.test\.$/m);
    assert.match(
      primary.stdout,
      /^nas\.home\.test\. 300 IN A 192\.168\.1\.10$/m,
    );

    const before = await cli(["zonefile", "mirror", "--data-dir", dir]);
    assert.equal(before.code, 1);
    assert.match(before.stderr, /holds no copy of it yet/);

    const db = openLocalDb(join(dir, LOCAL_DB_FILE));
    new SecondaryCopies(db).save("mirror.test.", {
      serial: 9,
      rrsets: rrsetsFromText([
        "mirror.test. 3600 IN SOA ns1.mirror.test. h.mirror.test. 9 3600 600 86400 300",
        "www.mirror.test. 300 IN A 192.0.2.7",
      ]),
      transferredAt: 0,
      refreshedAt: 0,
    });
    db.close();
    const copy = await cli(["zonefile", "mirror", "--data-dir", dir]);
    assert.equal(copy.code, 0, copy.stderr);
    assert.match(copy.stdout, /secondary DNSZone mirror\), serial 9/);
    assert.match(copy.stdout, /^www\.mirror\.test\. 300 IN A 192\.0\.2\.7$/m);

    const missing = await cli(["zonefile", "nope", "--data-dir", dir]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no DNSZone "nope"/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
