/**
 * get, apply, delete, describe, zones and records against a real `kudurru
 * serve` through a logged-in context: what the CLI writes over the API is
 * what the server then answers in DNS, a viewer's token is refused writes
 * with the API's message, and --data-dir still means this machine.
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

function zoneYaml(name: string, zoneName: string): string {
  return `apiVersion: kudurru.io/v1alpha1
kind: DNSZone
metadata:
  name: ${name}
spec:
  zoneName: ${zoneName}
  type: primary
`;
}

Deno.test({
  name:
    "get, apply, records, describe, zones and delete go through the current context's API; a viewer cannot apply; --data-dir stays local",
  async fn() {
    await using server = await startKudurru({
      objects: [localReadyZoneObject()],
      readyZone: LOCAL_READY_ZONE,
      upstreamPort: freePort(),
      nodeName: "verbs-node",
      env: { KUDURRU_ADMIN_PASSWORD: PASSWORD },
    });
    await waitForApi(server.apiUrl);
    const tmp = await Deno.makeTempDir({ prefix: "kudurru-cli-verbs-" });
    try {
      const env = { XDG_CONFIG_HOME: join(tmp, "config") };
      await logInAsAdmin(server.apiUrl, env);

      // get lists what the server has: the zone of its objects.d.
      const table = await cli(["get", "zones"], env);
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, /^NAME\s+MANAGED BY\s+GENERATION$/m);
      assert.match(table.stdout, /^local-test\s+file:\S*corpus\.yaml\s+1$/m);
      const listed = await cli(["get", "zones", "-o", "json"], env);
      assert.equal(listed.code, 0, listed.stderr);
      const list = JSON.parse(listed.stdout);
      assert.equal(list.kind, "List");
      assert.ok(
        list.items.some((z: { metadata: { name: string } }) =>
          z.metadata.name === "local-test"
        ),
      );

      // apply -f writes through the API, then get reads it back.
      const zoneFile = join(tmp, "home.yaml");
      await Deno.writeTextFile(zoneFile, zoneYaml("home", "home.test."));
      const applied = await cli(["apply", "-f", zoneFile], env);
      assert.equal(applied.code, 0, applied.stderr);
      assert.equal(applied.stdout, "DNSZone/home created\n");
      const again = await cli(["apply", "-f", zoneFile], env);
      assert.equal(again.code, 0, again.stderr);
      assert.equal(again.stdout, "DNSZone/home unchanged\n");
      const got = await cli(["get", "zone", "home", "-o", "json"], env);
      assert.equal(got.code, 0, got.stderr);
      const home = JSON.parse(got.stdout);
      assert.equal(home.spec.zoneName, "home.test.");
      assert.equal(home.metadata.managedBy, "api");

      // records add: the server answers it in DNS.
      const added = await cli([
        "records",
        "add",
        "home",
        "www.home.test",
        "A",
        "192.0.2.10",
        "--ttl",
        "120",
      ], env);
      assert.equal(added.code, 0, added.stderr);
      assert.equal(
        added.stdout,
        "www.home.test. 120 A 192.0.2.10 added to DNSZone home\n",
      );
      const answer = await eventually("www.home.test A", async () => {
        const r = await query(server.port, "www.home.test", "A");
        return r.answers.length > 0 ? r : undefined;
      });
      assert.equal(answer.rcode, "NOERROR");
      assert.deepEqual(
        answer.answers.map((a) => [a.type, a.ttl, a.data]),
        [["A", 120, "192.0.2.10"]],
      );

      // zones: the zone with its serial, records and readiness.
      const zones = await eventually(
        "home Ready in kudurru zones",
        async () => {
          const r = await cli(["zones"], env);
          return /^home\s+home\.test\.\s+primary\s+\d+\s+1\s+True$/m.test(
              r.stdout,
            )
            ? r
            : undefined;
        },
      );
      assert.equal(zones.code, 0);
      assert.match(
        zones.stdout,
        /^NAME\s+ZONE\s+TYPE\s+SERIAL\s+RECORDS\s+READY$/m,
      );
      assert.match(zones.stdout, /^local-test\s+local\.test\.\s+primary\s/m);

      // describe: who manages it, its spec, status and conditions.
      const described = await cli(["describe", "zone", "home"], env);
      assert.equal(described.code, 0, described.stderr);
      assert.match(described.stdout, /^Name:\s+home$/m);
      assert.match(described.stdout, /^Managed by:\s+api$/m);
      assert.match(described.stdout, /^Spec:\n {2}zoneName: home\.test\.\n/m);
      assert.match(described.stdout, /^Status:\n {2}(.+\n {2})*serial: \d+$/m);
      assert.match(
        described.stdout,
        /^Conditions:\n {2}TYPE\s+STATUS\s+REASON\s+SINCE\s+MESSAGE\n {2}Ready\s+True\s+\S+\s+\d{4}-\d\d-\d\dT/m,
      );

      // records rm: gone from the answers.
      const removed = await cli(
        ["records", "rm", "home", "www.home.test", "A", "192.0.2.10"],
        env,
      );
      assert.equal(removed.code, 0, removed.stderr);
      assert.equal(
        removed.stdout,
        "www.home.test. 120 A 192.0.2.10 removed from DNSZone home\n",
      );
      const gone = await eventually("www.home.test to be gone", async () => {
        const r = await query(server.port, "www.home.test", "A");
        return r.answers.length === 0 ? r : undefined;
      });
      assert.equal(gone.rcode, "NXDOMAIN");

      // A viewer's token reads, but cannot apply: the API's message, exit 1.
      const minted = await cli([
        "api",
        "POST",
        "/api/v1/tokens",
        "-d",
        JSON.stringify({ description: "viewer", scopes: [{ role: "viewer" }] }),
      ], env);
      assert.equal(minted.code, 0, minted.stderr);
      const viewerToken = JSON.parse(minted.stdout).data.token as string;
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
        `${viewerToken}\n`,
      );
      assert.equal(viewer.code, 0, viewer.stderr);
      const reads = await cli(["get", "zone", "home", "-o", "yaml"], env);
      assert.equal(reads.code, 0, reads.stderr);
      assert.match(reads.stdout, /^ {2}zoneName: home\.test\.$/m);
      const labFile = join(tmp, "lab.yaml");
      await Deno.writeTextFile(labFile, zoneYaml("lab", "lab.test."));
      const refused = await cli(["apply", "-f", labFile], env);
      assert.equal(refused.code, 1);
      assert.equal(refused.stdout, "");
      assert.equal(
        refused.stderr,
        `error: DNSZone/lab: context "viewer" (${server.apiUrl}): The token's scopes do not allow it (403 forbidden)\n` +
          "missing: create on dnszones (scope zone:lab)\n" +
          "hint: ask an admin for a role that grants it\n",
      );
      const notDeleted = await cli(["delete", "zone", "home"], env);
      assert.equal(notDeleted.code, 1);
      assert.match(notDeleted.stderr, /\(403 forbidden\)/);

      // delete through the admin's context; then the server has no such zone.
      const deleted = await cli(
        ["delete", "zone", "home", "--context", "lab"],
        env,
      );
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.equal(deleted.stdout, "DNSZone/home deleted\n");
      const missing = await cli(
        ["get", "zone", "home", "--context", "lab"],
        env,
      );
      assert.equal(missing.code, 1);
      assert.match(
        missing.stderr,
        new RegExp(
          `^kudurru get: context "lab" \\(${server.apiUrl}\\): .*\\(404 not_found\\)`,
        ),
      );

      // --data-dir is this machine, with a context current.
      const dataDir = join(tmp, "data");
      const local = await cli(
        ["apply", "-f", labFile, "--data-dir", dataDir],
        env,
      );
      assert.equal(local.code, 0, local.stderr);
      assert.equal(local.stdout, "DNSZone/lab created\n");
      const localZones = await cli(
        ["get", "zones", "--data-dir", dataDir, "-o", "json"],
        env,
      );
      assert.equal(localZones.code, 0, localZones.stderr);
      assert.deepEqual(
        JSON.parse(localZones.stdout).items.map((
          z: { metadata: { name: string } },
        ) => z.metadata.name),
        ["lab"],
      );
      const localDescribe = await cli(
        ["describe", "zone", "lab", "--data-dir", dataDir],
        env,
      );
      assert.equal(localDescribe.code, 0, localDescribe.stderr);
      assert.match(localDescribe.stdout, /^Managed by:\s+api$/m);
      const notOnServer = await cli(["get", "zone", "lab"], env);
      assert.equal(notOnServer.code, 1);
      assert.match(notOnServer.stderr, /404 not_found/);

      // records needs a server: without a context it says to log in.
      const noContext = await cli(
        ["records", "add", "home", "a.home.test", "A", "192.0.2.1"],
        { XDG_CONFIG_HOME: join(tmp, "nobody") },
      );
      assert.equal(noContext.code, 1);
      assert.match(noContext.stderr, /run kudurru login --server URL first/);
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
