/**
 * kudurru against the reference: the corpus objects are loaded from
 * objects.d, every corpus query goes to kudurru, NSD and Knot, and kudurru
 * must answer like NSD, or like the peer disagreements.ts names where the
 * two differ. SOA serials are masked: kudurru stamps its own.
 */
import assert from "node:assert/strict";
import {
  CORPUS,
  corpusZoneFiles,
  MAIN_ZONE,
  RECORD_SETS,
  ZONES,
} from "./corpus.ts";
import { startKnot, startNsd } from "./peers.ts";
import { diffResponses, type NormalizedResponse } from "./compare.ts";
import {
  askCorpusQuery,
  canSend,
  type CorpusAnswer,
  showAnswer,
} from "./corpus_answers.ts";
import { KNOWN_DISAGREEMENTS } from "./disagreements.ts";
import { startKudurru } from "../../src/testing/kudurru_server.ts";
import type { KObject } from "../../src/api/v1alpha1/meta.ts";

/**
 * Queries where kudurru deliberately answers unlike both peers, each with
 * the check its answer must pass instead.
 */
const KUDURRU_OWN: Record<string, (a: NormalizedResponse) => void> = {
  // The first boot seeds a root forward zone, so names outside every zone
  // go to the default upstream group (the NSD peer here, which refuses them):
  // no data, not authoritative.
  "name in no zone is REFUSED": notAuthoritativeNoData,
  "root SOA is REFUSED": notAuthoritativeNoData,
  "parent of the zones is REFUSED": notAuthoritativeNoData,
  // NSD and Knot answer NODATA; a question for a meta-type is malformed
  // (RFC 6895 §3.1) and BIND answers FORMERR, as kudurru does.
  "qtype OPT": (a) => {
    assert.equal(a.rcode, "FORMERR");
    assert.deepEqual(a.answer, []);
  },
  // kudurru reports its own version, not the peers' configured string.
  "CHAOS version.bind": (a) => {
    assert.equal(a.rcode, "NOERROR");
    assert.equal(a.answer.length, 1);
    assert.match(a.answer[0]!, /^version\.bind\. \d+ CH TXT "/);
  },
};

function notAuthoritativeNoData(a: NormalizedResponse): void {
  assert.equal(a.flags.aa, false, "not authoritative");
  assert.deepEqual(a.answer, [], "no answer records");
  assert.ok(["REFUSED", "SERVFAIL"].includes(a.rcode), `rcode ${a.rcode}`);
}

function answered(who: string, a: CorpusAnswer): NormalizedResponse {
  assert.ok(!("error" in a), `${who}: ${showAnswer(a)}`);
  return a as NormalizedResponse;
}

/**
 * On Deno's own UDP socket (the default) and on the libc sockets of
 * listeners.ffiSockets, two per address: both must answer alike. And with
 * every zone a secondary of the Knot peer, transferred from it: the copies
 * must answer as the zones kudurru builds from its own objects.
 */
const MODES = [
  { name: "", ffiSockets: undefined, secondary: false },
  {
    name: " (listeners.ffiSockets, 2 sockets)",
    ffiSockets: 2,
    secondary: false,
  },
  {
    name: " (every zone a secondary of Knot)",
    ffiSockets: undefined,
    secondary: true,
  },
];

for (const mode of MODES) {
  Deno.test({
    name:
      `interop kudurru answers the corpus like the reference servers${mode.name}`,
    fn: (t) => compareCorpus(t, mode.ffiSockets, mode.secondary),
  });
}

/** The corpus zones as secondaries of the server on `port`. */
function secondaryZones(port: number): KObject[] {
  return ZONES.map((zone) => ({
    apiVersion: zone.apiVersion,
    kind: zone.kind,
    metadata: { name: zone.metadata.name },
    spec: {
      zoneName: zone.spec!.zoneName,
      type: "secondary",
      secondary: { primaries: [`127.0.0.1:${port}`] },
    },
  }));
}

async function compareCorpus(
  t: Deno.TestContext,
  ffiSockets: number | undefined,
  secondary: boolean,
) {
  const zones = corpusZoneFiles();
  await using nsd = await startNsd(zones);
  await using knot = await startKnot(zones, { transferFromLoopback: true });
  await using kudurru = await startKudurru({
    objects: secondary ? secondaryZones(knot.port) : [...ZONES, ...RECORD_SETS],
    readyZone: MAIN_ZONE,
    upstreamPort: nsd.port,
    ...(ffiSockets !== undefined && { ffiSockets }),
  });
  const mask = { maskSoaSerial: true };
  for (const q of CORPUS.filter(canSend)) {
    await t.step(q.name, async () => {
      const got = answered(
        "kudurru",
        await askCorpusQuery(kudurru.port, q, mask),
      );
      const own = KUDURRU_OWN[q.name];
      if (own !== undefined) return own(got);
      const fromNsd = answered(
        "NSD",
        await askCorpusQuery(nsd.port, q, mask),
      );
      const fromKnot = answered(
        "Knot",
        await askCorpusQuery(knot.port, q, mask),
      );
      const choice = KNOWN_DISAGREEMENTS[q.name]?.kudurru ?? "nsd";
      const vsNsd = diffResponses(fromNsd, got, ["nsd", "kudurru"]);
      const vsKnot = diffResponses(fromKnot, got, ["knot", "kudurru"]);
      if (choice === "nsd") assert.equal(vsNsd, "", vsNsd);
      else if (choice === "knot") assert.equal(vsKnot, "", vsKnot);
      else {
        assert.ok(
          vsNsd === "" || vsKnot === "",
          `kudurru matches neither peer:\n${vsNsd}\n${vsKnot}`,
        );
      }
    });
  }
}
