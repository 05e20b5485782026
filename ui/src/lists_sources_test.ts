import assert from "node:assert/strict";
import type { BlockList } from "./lists_objects.ts";
import {
  hasUrlSource,
  nameFromUrl,
  newBlockList,
  refreshLines,
  ruleTotal,
  sourceOrigin,
  sourceStatuses,
  withSourceEnabled,
} from "./lists_sources.ts";

const list = (generation: number, observed: number): BlockList => ({
  metadata: { name: "ads", namespace: "default", generation },
  spec: {
    sources: [
      { url: "https://example.org/hosts.txt", enabled: true },
      { inline: "a.example\nb.example\n", enabled: false },
    ],
  },
  status: {
    observedGeneration: observed,
    sources: [{ ruleCount: 120, invalid: 2 }, { ruleCount: 2 }],
  },
});

Deno.test("sourceOrigin: the URL, typed lines or the ConfigMap", () => {
  assert.equal(
    sourceOrigin({ url: "https://big.oisd.nl/" }),
    "https://big.oisd.nl/",
  );
  assert.equal(sourceOrigin({ inline: "a\n\nb\n" }), "Typed in, 2 lines");
  assert.equal(sourceOrigin({ inline: "a\n" }), "Typed in, 1 line");
  assert.equal(
    sourceOrigin({ configMapRef: { name: "lists", key: "ads" } }),
    "ConfigMap lists, key ads",
  );
});

Deno.test("sourceStatuses: by position, none while the status is of an older generation", () => {
  assert.deepEqual(sourceStatuses(list(2, 2)), [
    { ruleCount: 120, invalid: 2 },
    { ruleCount: 2 },
  ]);
  assert.deepEqual(sourceStatuses(list(3, 2)), [undefined, undefined]);
  assert.equal(ruleTotal(list(2, 2)), 122);
  assert.equal(ruleTotal({ metadata: { name: "new" } }), 0);
});

Deno.test("hasUrlSource: only an enabled URL source can be refreshed", () => {
  assert.ok(hasUrlSource(list(1, 1)));
  const off = list(1, 1);
  off.spec!.sources = withSourceEnabled(off.spec!.sources, 0, false);
  assert.ok(!hasUrlSource(off));
  assert.equal(off.spec!.sources[1]!.enabled, false);
});

Deno.test("nameFromUrl: host and file, as an object name", () => {
  assert.equal(nameFromUrl("https://big.oisd.nl/"), "big-oisd-nl");
  assert.equal(
    nameFromUrl(
      "https://raw.githubusercontent.com/hagezi/dns-blocklists/main/adblock/light.txt",
    ),
    "raw-githubusercontent-com-light",
  );
  assert.equal(nameFromUrl("not a url"), "");
});

Deno.test("newBlockList: one source, typed rules one per line", () => {
  assert.deepEqual(
    newBlockList({
      namespace: " ",
      name: " mine ",
      mode: "block",
      inline: "  a.example \r\n\r\n||b.example^",
    }),
    {
      apiVersion: "kudurru.io/v1alpha1",
      kind: "BlockList",
      metadata: { name: "mine", namespace: "default" },
      spec: {
        mode: "block",
        sources: [{ inline: "a.example\n||b.example^\n" }],
      },
    },
  );
  assert.deepEqual(
    newBlockList({
      namespace: "kids",
      name: "ok",
      mode: "allow",
      url: " https://example.org/allow.txt ",
    }).spec,
    { mode: "allow", sources: [{ url: "https://example.org/allow.txt" }] },
  );
});

Deno.test("refreshLines: each source's outcome, or why there is none", () => {
  const base = { namespace: "default", name: "ads" };
  assert.deepEqual(
    refreshLines({
      ...base,
      state: "fetched",
      sources: [
        { url: "https://a.example/", ok: true, changed: true },
        { url: "https://b.example/", ok: true, changed: false },
        { url: "https://c.example/", ok: false, error: "HTTP 404" },
      ],
    }),
    [
      "https://a.example/: fetched, changed.",
      "https://b.example/: fetched, unchanged.",
      "https://c.example/: failed: HTTP 404",
    ],
  );
  assert.deepEqual(refreshLines({ ...base, state: "pending", sources: [] }), [
    "Still downloading: the list's status will show the outcome.",
  ]);
  assert.deepEqual(refreshLines({ ...base, state: "nothing", sources: [] }), [
    "Nothing to fetch: the list has no enabled URL source.",
  ]);
});
