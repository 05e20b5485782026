/**
 * export and restore through a logged-in context against a real `kudurru
 * serve`: an export over the API restores a deleted zone, which the server
 * then answers in DNS again; a dry run writes nothing; a viewer's restore
 * is refused with the permission it lacks; a backup archive is refused.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  cli,
  eventually,
  logInAsAdmin,
  PASSWORD,
} from "./testdata/cli_runs.ts";
import { freePort } from "../testing/free_port.ts";
import { query } from "../testing/dns_client.ts";
import {
  LOCAL_READY_ZONE,
  localReadyZoneObject,
  startKudurru,
  waitForApi,
} from "../testing/kudurru_server.ts";
import { checkExport } from "../store/export_marker.ts";

const HOME = `apiVersion: kudurru.io/v1alpha1
kind: DNSZone
metadata:
  name: home
spec:
  zoneName: home.test.
  type: primary
---
apiVersion: kudurru.io/v1alpha1
kind: DNSRecordSet
metadata:
  name: home-www
  namespace: default
spec:
  zoneRef: { name: home }
  endpoints:
    - { dnsName: www.home.test, recordType: A, targets: [192.0.2.10] }
`;

Deno.test({
  name:
    "export and restore go through the current context's API: a deleted zone comes back and answers; a viewer is refused",
  async fn() {
    await using server = await startKudurru({
      objects: [localReadyZoneObject()],
      readyZone: LOCAL_READY_ZONE,
      upstreamPort: freePort(),
      nodeName: "export-node",
      env: { KUDURRU_ADMIN_PASSWORD: PASSWORD },
    });
    await waitForApi(server.apiUrl);
    const tmp = await Deno.makeTempDir({ prefix: "kudurru-cli-export-" });
    try {
      const env = { XDG_CONFIG_HOME: join(tmp, "config") };
      await logInAsAdmin(server.apiUrl, env);
      const applied = await cli(["apply", "-f", "-"], env, HOME);
      assert.equal(applied.code, 0, applied.stderr);
      const www = () => query(server.port, "www.home.test", "A");
      await eventually("www.home.test to answer", async () => {
        const r = await www();
        return r.answers.length > 0 ? r : undefined;
      });

      // The export: the server's objects, marked complete, no account.
      const file = join(tmp, "backup.yaml");
      const exported = await cli(["export", "-o", file], env);
      assert.equal(exported.code, 0, exported.stderr);
      assert.equal(exported.stderr, `wrote ${file}\n`);
      const text = await Deno.readTextFile(file);
      assert.equal(checkExport(text, "the export"), "complete");
      assert.match(text, /^ {6}name: home$/m);
      assert.match(text, /^ {6}name: local-test$/m);
      assert.doesNotMatch(text, /passwordHash|secretHash|kind: User/);

      const deleted = await cli(["delete", "zone", "home"], env);
      assert.equal(deleted.code, 0, deleted.stderr);
      await eventually("www.home.test to stop answering", async () => {
        const r = await www();
        return r.answers.length === 0 ? r : undefined;
      });

      // A dry run says what would happen, and the zone stays deleted.
      const dry = await cli(["restore", file, "--dry-run"], env);
      assert.equal(dry.code, 0, dry.stderr);
      // The first boot's defaults and the file's zone are there as they
      // were exported: unchanged, still their owners'.
      const others = [
        "DNSZone/local-test",
        "DNSZone/root",
        "DNSRecordSet/default/home-www",
        "BlockList/default/starter",
        "ClientGroup/default/default",
        "Policy/default/default",
      ];
      assert.equal(
        dry.stdout,
        "DNSZone/home created (dry run)\n" +
          others.map((o) => `${o} unchanged (dry run)\n`).join("") +
          `dry run: nothing was written; ${file} would restore as above\n`,
      );
      const still = await cli(["get", "zone", "home"], env);
      assert.equal(still.code, 1);
      assert.match(still.stderr, /404 not_found/);

      // The restore brings the zone back, and the server answers for it.
      const restored = await cli(["restore", file], env);
      assert.equal(restored.code, 0, restored.stderr);
      assert.equal(
        restored.stdout,
        "DNSZone/home created\n" +
          others.map((o) => `${o} unchanged\n`).join("") +
          `restored ${file}\n`,
      );
      const back = await eventually(
        "www.home.test to answer again",
        async () => {
          const r = await www();
          return r.answers.length > 0 ? r : undefined;
        },
      );
      assert.deepEqual(back.answers.map((a) => [a.type, a.data]), [[
        "A",
        "192.0.2.10",
      ]]);

      // A viewer's token exports what it may read, and restores nothing.
      const minted = await cli([
        "api",
        "POST",
        "/api/v1/tokens",
        "-d",
        JSON.stringify({ description: "viewer", scopes: [{ role: "viewer" }] }),
      ], env);
      assert.equal(minted.code, 0, minted.stderr);
      const viewer = await cli(
        [
          "login",
          "--server",
          server.apiUrl,
          "--token-file",
          "-",
          "--name",
          "viewer",
        ],
        env,
        `${JSON.parse(minted.stdout).data.token}\n`,
      );
      assert.equal(viewer.code, 0, viewer.stderr);
      const read = await cli(["export"], env);
      assert.equal(read.code, 0, read.stderr);
      assert.match(read.stdout, /^# kudurru export: 7 items,/);
      const refused = await cli(["restore", file], env);
      assert.equal(refused.code, 1);
      assert.equal(refused.stdout, "");
      assert.match(
        refused.stderr,
        /^kudurru restore: context "viewer" \(.*\): 7 of 7 objects cannot be restored, so nothing was: DNSZone\/home: .*\(403 forbidden\)\nmissing: update on dnszones \(scope zone:home\)\n/,
      );

      // A backup archive replaces a data directory's files: not over an API.
      const archive = join(tmp, "backup.zip");
      await Deno.writeFile(
        archive,
        new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0]),
      );
      const zip = await cli(["restore", archive], env);
      assert.equal(zip.code, 1);
      assert.equal(
        zip.stderr,
        `kudurru restore: a backup archive is restored on the server's own data directory: kudurru restore ${archive} --data-dir DIR while the server is stopped\n`,
      );
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
