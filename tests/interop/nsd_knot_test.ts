/**
 * The reference: NSD and Knot serve the corpus zones and must answer every
 * corpus query alike, except for the documented disagreements, which must
 * still disagree (so the list never goes stale).
 */
import assert from "node:assert/strict";
import { CORPUS, corpusZoneFiles } from "./corpus.ts";
import { startKnot, startNsd } from "./peers.ts";
import { diffResponses, type NormalizedResponse } from "./compare.ts";
import { askCorpusQuery, canSend, showAnswer } from "./corpus_answers.ts";
import { KNOWN_DISAGREEMENTS } from "./disagreements.ts";
import { sendRaw } from "../../src/testing/dns_client.ts";

Deno.test("interop corpus names every known disagreement", () => {
  const names = new Set(CORPUS.map((q) => q.name));
  assert.equal(names.size, CORPUS.length, "corpus query names are unique");
  for (const name of Object.keys(KNOWN_DISAGREEMENTS)) {
    assert.ok(names.has(name), `"${name}" is a corpus query`);
  }
});

Deno.test("interop NSD and Knot agree on the corpus except the known disagreements", async (t) => {
  const zones = corpusZoneFiles();
  await using nsd = await startNsd(zones);
  await using knot = await startKnot(zones);
  for (const q of CORPUS.filter(canSend)) {
    await t.step(q.name, async () => {
      const a = await askCorpusQuery(nsd.port, q);
      const b = await askCorpusQuery(knot.port, q);
      assert.ok(!("error" in a), `NSD: ${showAnswer(a)}`);
      assert.ok(!("error" in b), `Knot: ${showAnswer(b)}`);
      const diff = diffResponses(
        a as NormalizedResponse,
        b as NormalizedResponse,
        ["nsd", "knot"],
      );
      const known = KNOWN_DISAGREEMENTS[q.name];
      if (known === undefined) {
        assert.equal(diff, "", `NSD and Knot disagree:\n${diff}`);
      } else {
        assert.notEqual(
          diff,
          "",
          `listed as a disagreement but both answer alike: ${showAnswer(a)}`,
        );
      }
    });
  }
});

Deno.test("interop NSD and Knot both ignore a datagram shorter than a header", async () => {
  const zones = corpusZoneFiles();
  await using nsd = await startNsd(zones);
  await using knot = await startKnot(zones);
  const garbage = new Uint8Array([0x12, 0x34, 0x01]);
  assert.equal(await sendRaw(nsd.port, garbage), null, "NSD stays silent");
  assert.equal(await sendRaw(knot.port, garbage), null, "Knot stays silent");
});
