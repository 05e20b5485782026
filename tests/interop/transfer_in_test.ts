/**
 * Zone transfers in (src/transfer/transfer_in.ts) from real primaries:
 * Knot's AXFR of the corpus zone, and kudurru's own AXFR then IXFR after
 * a change, TSIG-signed.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import YAML from "yaml";
import { corpusZoneFiles, MAIN_ZONE } from "./corpus.ts";
import { startKnot } from "./peers.ts";
import { startKudurru } from "../../src/testing/kudurru_server.ts";
import { freePort } from "../../src/testing/free_port.ts";
import { API_VERSION, type KObject } from "../../src/api/v1alpha1/meta.ts";
import { transferIn } from "../../src/transfer/transfer_in.ts";
import { formatRRSet } from "../../src/zone/format.ts";

/** dig's AXFR lines, normalised; `generic`: every RDATA as RFC 3597 \#. */
async function digAxfr(
  port: number,
  zone: string,
  generic = false,
): Promise<string[]> {
  const out = await new Deno.Command("dig", {
    args: [
      "-p",
      String(port),
      "@127.0.0.1",
      "+nocookie",
      "+onesoa",
      "+nosplit",
      ...(generic ? ["+unknownformat"] : []),
      "AXFR",
      zone,
    ],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout).split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith(";"))
    .map((l) => l.split(/\s+/).join(" ").toLowerCase()).sort();
}

Deno.test("interop transferIn takes Knot's AXFR of the corpus zone, record for record", async () => {
  await using knot = await startKnot(corpusZoneFiles(), {
    transferFromLoopback: true,
  });
  const result = await transferIn(MAIN_ZONE, {
    address: "127.0.0.1",
    port: knot.port,
  }, undefined);
  assert.equal(result.kind, "transferred");
  if (result.kind !== "transferred") return;
  assert.equal(result.how, "AXFR");
  // kudurru writes a star that is not the leftmost label as \*; dig as *.
  const ours = result.rrsets.flatMap((r) => formatRRSet(r))
    .map((l) => l.split(/\s+/).join(" ").toLowerCase().replace("\\*", "*"))
    .sort();
  // Types kudurru keeps as opaque data (DS here) print as \# on both sides.
  const plain = await digAxfr(knot.port, MAIN_ZONE);
  const generic = new Set(
    (await digAxfr(knot.port, MAIN_ZONE, true)).map((l) =>
      l.replace(" class1 ", " in ").replace(" type43 ", " ds ")
    ),
  );
  assert.equal(ours.length, plain.length);
  for (const line of ours) {
    assert.ok(
      line.includes(" \\# ") ? generic.has(line) : plain.includes(line),
      `${line} is not in Knot's AXFR`,
    );
  }
  // Up to date: nothing more to fetch.
  const again = await transferIn(MAIN_ZONE, {
    address: "127.0.0.1",
    port: knot.port,
  }, { serial: result.serial, rrsets: result.rrsets });
  assert.deepEqual(again, { kind: "current", serial: result.serial });
});

const SECRET = "u8hAePjqt3m6vbC2ZKQd+U1SE5G0kH3BhYy3LwB8r5s=";
const KEY_TEXT =
  `key "xfr.test." {\n\talgorithm hmac-sha256;\n\tsecret "${SECRET}";\n};\n`;

function zoneObjects(address: string): KObject[] {
  return [{
    apiVersion: API_VERSION,
    kind: "DNSZone",
    metadata: { name: "in-test" },
    spec: {
      zoneName: "in.test.",
      type: "primary",
      policy: { zoneTransfer: "allow", transferTSIGKeyRefs: ["xfr"] },
    },
  }, {
    apiVersion: API_VERSION,
    kind: "DNSRecordSet",
    metadata: { name: "hosts", namespace: "default" },
    spec: {
      zoneRef: { name: "in-test" },
      endpoints: [
        { dnsName: "www.in.test.", recordType: "A", targets: [address] },
        {
          dnsName: "mail.in.test.",
          recordType: "MX",
          targets: ["10 mx.in.test."],
        },
        { dnsName: "mx.in.test.", recordType: "A", targets: ["192.0.2.25"] },
      ],
    },
  }];
}

Deno.test("interop transferIn takes kudurru's AXFR, then its IXFR after a change, signed", async () => {
  await using kudurru = await startKudurru({
    objects: zoneObjects("192.0.2.1"),
    readyZone: "in.test.",
    upstreamPort: freePort(),
    dataFiles: { "keys/tsig/xfr.key": KEY_TEXT },
  });
  const source = {
    address: "127.0.0.1",
    port: kudurru.port,
    key: {
      name: "xfr.test.",
      algorithm: "hmac-sha256" as const,
      secret: Uint8Array.fromBase64(SECRET),
    },
  };
  // Until the first serial is stamped, kudurru serves serial 1.
  let first = await transferIn("in.test.", source, undefined);
  for (
    let i = 0;
    first.kind === "transferred" && first.serial === 1 && i < 50;
    i++
  ) {
    await new Promise((r) => setTimeout(r, 100));
    first = await transferIn("in.test.", source, undefined);
  }
  assert.ok(first.kind === "transferred" && first.how === "AXFR");
  const www = (rrsets: { name: string; type: number; rdata: unknown[] }[]) =>
    rrsets.filter((r) => r.name === "www.in.test." && r.type === 1)
      .flatMap((r) => r.rdata);
  assert.deepEqual(www(first.rrsets), [{ type: "A", address: "192.0.2.1" }]);

  await Deno.writeTextFile(
    join(dirname(kudurru.dataDir), "objects.d", "corpus.yaml"),
    zoneObjects("192.0.2.2").map((o) => YAML.stringify(o)).join("---\n"),
  );
  let second = await transferIn("in.test.", source, first);
  for (let i = 0; second.kind === "current" && i < 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    second = await transferIn("in.test.", source, first);
  }
  assert.ok(second.kind === "transferred", JSON.stringify(second));
  assert.equal(second.how, "IXFR");
  assert.ok(second.serial > first.serial);
  assert.deepEqual(www(second.rrsets), [{ type: "A", address: "192.0.2.2" }]);
  // Everything else came through the difference unchanged.
  const rest = (rrsets: typeof first.rrsets) =>
    rrsets.filter((r) => r.name !== "www.in.test." && r.type !== 6)
      .flatMap((r) => formatRRSet(r)).sort();
  assert.deepEqual(rest(second.rrsets), rest(first.rrsets));

  // A wrong secret: refused, nothing taken.
  await assert.rejects(
    transferIn("in.test.", {
      ...source,
      key: { ...source.key, secret: new Uint8Array(32).fill(9) },
    }, undefined),
    (error: Error) => error.name === "TransferError",
  );
});
