/**
 * Zone transfers out, checked with dig: kudurru's AXFR of the corpus zone
 * holds the same records as Knot's AXFR of the same zone; the zone's
 * transfer policy and TSIG keys decide who gets one, and dig verifies the
 * signed stream.
 */
import assert from "node:assert/strict";
import { corpusZoneFiles, MAIN_ZONE, RECORD_SETS, ZONES } from "./corpus.ts";
import { OTHER_ZONE } from "./corpus_objects.ts";
import { startKnot } from "./peers.ts";
import { startKudurru } from "../../src/testing/kudurru_server.ts";
import type { DNSZone } from "../../src/api/v1alpha1/dnszone.ts";

const SECRET = "u8hAePjqt3m6vbC2ZKQd+U1SE5G0kH3BhYy3LwB8r5s=";
const KEY_FILE =
  `key "xfr.kudurru.test." {\n\talgorithm hmac-sha256;\n\tsecret "${SECRET}";\n};\n`;

/** The corpus zones, the main one open to loopback, the other to the key. */
function zonesWithPolicies(): DNSZone[] {
  return ZONES.map((zone) => {
    const name = zone.spec!.zoneName;
    if (name === MAIN_ZONE) {
      return withPolicy(zone, {
        zoneTransfer: "useNetworkACL",
        transferACL: ["!127.0.0.2", "127.0.0.0/8", "::1"],
      });
    }
    if (name === OTHER_ZONE) {
      return withPolicy(zone, {
        zoneTransfer: "allow",
        transferTSIGKeyRefs: ["xfr"],
      });
    }
    return zone;
  });
}

function withPolicy(zone: DNSZone, policy: Record<string, unknown>): DNSZone {
  return {
    ...zone,
    spec: { ...zone.spec!, policy: { ...zone.spec!.policy, ...policy } },
  } as DNSZone;
}

interface Dig {
  records: string[];
  /** dig's comments (status, TSIG verdicts, "Transfer failed."). */
  comments: string;
}

async function dig(port: number, args: string[]): Promise<Dig> {
  const out = await new Deno.Command("dig", {
    args: [
      "-p",
      String(port),
      "@127.0.0.1",
      "+nocookie",
      "+tries=1",
      "+time=5",
      ...args,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) +
    new TextDecoder().decode(out.stderr);
  const lines = text.split("\n");
  return {
    records: lines.filter((l) => l.trim() !== "" && !l.startsWith(";"))
      .map((l) => l.split(/\s+/).join(" ")),
    comments: lines.filter((l) => l.startsWith(";")).join("\n"),
  };
}

/** The rcode kdig reports a transfer failed with, if it failed. */
async function transferError(
  port: number,
  args: string[],
): Promise<string | undefined> {
  const text = await kdigText(port, args);
  return /server replied with error '([A-Z]+)'/.exec(text)?.[1];
}

async function kdigText(port: number, args: string[]): Promise<string> {
  const out = await new Deno.Command("kdig", {
    args: ["-p", String(port), "@127.0.0.1", "+retry=0", "+time=5", ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout) +
    new TextDecoder().decode(out.stderr);
}

/** Records as a set to compare: the serial masked, SOA once. */
function normalized(records: string[]): string[] {
  return [
    ...new Set(
      records.map((r) =>
        r.replace(/^(\S+ \d+ IN SOA \S+ \S+) \d+/, "$1 SERIAL").toLowerCase()
      ),
    ),
  ].sort();
}

Deno.test("interop zone transfers: AXFR like Knot's, refused as the policy says, TSIG verified by dig", async (t) => {
  await using knot = await startKnot(corpusZoneFiles(), {
    transferFromLoopback: true,
  });
  await using kudurru = await startKudurru({
    objects: [...zonesWithPolicies(), ...RECORD_SETS],
    readyZone: MAIN_ZONE,
    upstreamPort: knot.port,
    dataFiles: { "keys/tsig/xfr.key": KEY_FILE },
  });

  await t.step("AXFR of the corpus zone holds Knot's records", async () => {
    const ours = await dig(kudurru.port, ["AXFR", MAIN_ZONE]);
    const theirs = await dig(knot.port, ["AXFR", MAIN_ZONE]);
    assert.ok(theirs.records.length > 20, theirs.comments);
    assert.match(ours.records[0]!, / SOA /);
    assert.match(ours.records.at(-1)!, / SOA /);
    assert.equal(ours.records[0], ours.records.at(-1));
    assert.deepEqual(normalized(ours.records), normalized(theirs.records));
    assert.equal(ours.records.length, theirs.records.length);
  });

  await t.step("a client the transfer list refuses gets REFUSED", async () => {
    const refused = await dig(kudurru.port, [
      "-b",
      "127.0.0.2",
      "AXFR",
      MAIN_ZONE,
    ]);
    assert.deepEqual(refused.records, []);
    assert.match(refused.comments, /Transfer failed/);
  });

  await t.step(
    "a zone whose policy keeps the default is not transferred",
    async () => {
      const child = ZONES.find((z) =>
        !["kudurru-test", "other-test"].includes(
          z.metadata.name,
        )
      )!;
      const refused = await dig(kudurru.port, ["AXFR", child.spec!.zoneName]);
      assert.deepEqual(refused.records, []);
      assert.match(refused.comments, /Transfer failed/);
    },
  );

  await t.step("a zone not served here: NOTAUTH", async () => {
    const args = ["AXFR", "elsewhere.example."];
    assert.equal(await transferError(kudurru.port, args), "NOTAUTH");
    assert.equal(await transferError(knot.port, args), "NOTAUTH");
  });

  await t.step(
    "a zone that needs a key: refused unsigned, sent signed, and dig verifies every message",
    async () => {
      const unsigned = await dig(kudurru.port, ["AXFR", OTHER_ZONE]);
      assert.deepEqual(unsigned.records, []);
      const signed = await dig(kudurru.port, [
        "-y",
        `hmac-sha256:xfr.kudurru.test.:${SECRET}`,
        "AXFR",
        OTHER_ZONE,
      ]);
      assert.doesNotMatch(signed.comments, /failed|TSIG error|tsig verify/i);
      const data = signed.records.filter((r) => !/ TSIG /.test(r));
      assert.match(data[0]!, / SOA /);
      assert.match(data.at(-1)!, / SOA /);
      assert.ok(signed.records.some((r) => / TSIG /.test(r)), signed.comments);
      const theirs = await dig(knot.port, ["AXFR", OTHER_ZONE]);
      assert.deepEqual(normalized(data), normalized(theirs.records));
    },
  );

  await t.step("a wrong secret is refused", async () => {
    const wrong = await dig(kudurru.port, [
      "-y",
      `hmac-sha256:xfr.kudurru.test.:${
        btoa("not the secret at all, 32 bytes")
      }`,
      "AXFR",
      OTHER_ZONE,
    ]);
    assert.equal(wrong.records.filter((r) => / SOA /.test(r)).length, 0);
    // NOTAUTH with a TSIG record saying BADSIG (RFC 8945 §5.2.2).
    assert.match(
      wrong.comments,
      /Couldn't verify signature: tsig indicates error/,
    );
  });
});
