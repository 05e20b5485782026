/**
 * kudurru as a secondary of Knot: the zone comes over by AXFR, a change on
 * Knot reaches kudurru by NOTIFY and IXFR, and with Knot gone the copy
 * expires and its names answer SERVFAIL, never NXDOMAIN.
 */
import assert from "node:assert/strict";
import { API_VERSION } from "../../src/api/v1alpha1/meta.ts";
import { freePort } from "../../src/testing/free_port.ts";
import {
  LOCAL_READY_ZONE,
  localReadyZoneObject,
  startKudurru,
} from "../../src/testing/kudurru_server.ts";
import { startKnotPrimary } from "./knot_notify.ts";

const ZONE = "sec.test.";

/** The zone on Knot at `serial`: short timers, so the copy expires fast. */
function zoneText(serial: number, address: string): string {
  return [
    `${ZONE} 3600 IN SOA ns1.${ZONE} hostmaster.${ZONE} ${serial} 3600 1 4 300`,
    `${ZONE} 3600 IN NS ns1.${ZONE}`,
    `ns1.${ZONE} 3600 IN A 127.0.0.1`,
    `www.${ZONE} 300 IN A ${address}`,
    `mail.${ZONE} 300 IN MX 10 ns1.${ZONE}`,
  ].join("\n") + "\n";
}

async function dig(port: number, name: string, type: string) {
  const out = await new Deno.Command("dig", {
    args: ["-p", String(port), "@127.0.0.1", "+tries=1", "+time=2", name, type],
    stdout: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  return {
    status: /status: ([A-Z]+)/.exec(text)?.[1],
    answer: text.split("\n").filter((l) => l !== "" && !l.startsWith(";"))
      .map((l) => l.split(/\s+/).at(-1)!),
  };
}

async function until(
  what: string,
  check: () => Promise<boolean>,
  log: () => string,
) {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}:\n${log()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

Deno.test("interop kudurru is a secondary of Knot: AXFR, NOTIFY and IXFR after a change, SERVFAIL once expired", async () => {
  const kudurruPort = freePort();
  const knotPort = freePort();
  const knot = await startKnotPrimary({
    zone: ZONE,
    serial: 100,
    notifyPort: kudurruPort,
    port: knotPort,
    transfers: true,
    zoneText: zoneText(100, "192.0.2.1"),
  });
  try {
    await using kudurru = await startKudurru({
      port: kudurruPort,
      objects: [localReadyZoneObject(), {
        apiVersion: API_VERSION,
        kind: "DNSZone",
        metadata: { name: "sec-test" },
        spec: {
          zoneName: ZONE,
          type: "secondary",
          secondary: { primaries: [`127.0.0.1:${knotPort}`] },
        },
      }],
      readyZone: LOCAL_READY_ZONE,
      upstreamPort: freePort(),
    });
    const log = () => kudurru.output();
    await until(
      "the first transfer",
      async () =>
        (await dig(kudurruPort, `www.${ZONE}`, "A")).answer[0] === "192.0.2.1",
      log,
    );
    // Answers equal the primary's.
    for (
      const [name, type] of [[ZONE, "SOA"], [`mail.${ZONE}`, "MX"], [
        `nope.${ZONE}`,
        "A",
      ]]
    ) {
      assert.deepEqual(
        await dig(kudurruPort, name!, type!),
        await dig(knotPort, name!, type!),
        `${name} ${type}`,
      );
    }
    assert.match(
      kudurru.output(),
      /Transferred a secondary zone[^\n]*how=AXFR/,
    );

    // A change on Knot: NOTIFY, then IXFR from its journal.
    await Deno.writeTextFile(knot.zoneFile, zoneText(101, "192.0.2.2"));
    const reload = await new Deno.Command("knotc", {
      args: ["-c", knot.conf, "zone-reload", ZONE],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(reload.success, new TextDecoder().decode(reload.stderr));
    await until(
      "the change",
      async () =>
        (await dig(kudurruPort, `www.${ZONE}`, "A")).answer[0] === "192.0.2.2",
      log,
    );
    assert.match(kudurru.output(), /NOTIFY from a primary/);
    assert.match(
      kudurru.output(),
      /Transferred a secondary zone[^\n]*serial=101[^\n]*how=IXFR/,
    );

    // Knot gone: past the SOA expire (4 s) the copy is not served.
    await knot.stop();
    await until(
      "the copy to expire",
      async () =>
        (await dig(kudurruPort, `www.${ZONE}`, "A")).status === "SERVFAIL",
      log,
    );
    assert.equal(
      (await dig(kudurruPort, `nope.${ZONE}`, "A")).status,
      "SERVFAIL",
    );
  } finally {
    await knot.stop();
  }
});
