import assert from "node:assert/strict";
import {
  assertIssue,
  type InvalidCase,
  mustValidate,
  withSpec,
} from "./testdata/issue_table.ts";
import type { BlockListSpec } from "./blocklist.ts";

const list = {
  apiVersion: "kudurru.io/v1alpha1",
  kind: "BlockList",
  metadata: { name: "ads", namespace: "dns" },
  spec: { sources: [{ url: "https://big.oisd.nl/" }] },
};
const sources = (...s: unknown[]) => withSpec(list, { sources: s });

Deno.test("BlockList accepts every source origin", async (t) => {
  const rows: [string, unknown][] = [
    ["url", { url: "http://example.org/hosts.txt", format: "hosts" }],
    ["inline", {
      inline: "||ads.example^\n@@||ok.example^",
      format: "adblock",
    }],
    ["configMapRef", {
      configMapRef: { name: "lists", key: "extra" },
      name: "extra",
    }],
  ];
  for (const [name, source] of rows) {
    await t.step(name, () => void mustValidate(sources(source)));
  }
});

Deno.test("BlockList applies defaults", () => {
  const spec = mustValidate(list).spec as BlockListSpec;
  assert.equal(spec.mode, "block");
  assert.equal(spec.refreshInterval, undefined, "the server default applies");
  assert.deepEqual(spec.sources, [
    { url: "https://big.oisd.nl/", format: "auto", enabled: true },
  ]);
});

Deno.test("BlockList rejects invalid lists", async (t) => {
  const cases: InvalidCase[] = [
    {
      name: "no sources",
      input: sources(),
      path: "spec.sources",
      message: "must have at least 1 item",
    },
    {
      name: "source without origin",
      input: sources({ format: "hosts" }),
      path: "spec.sources[0]",
      message: "must set exactly one of url, inline, configMapRef",
    },
    {
      name: "source with two origins",
      input: sources({ url: "https://a.example/", inline: "x.example" }),
      path: "spec.sources[0]",
      message:
        "must set exactly one of url, inline, configMapRef, got url and inline",
    },
    {
      name: "ftp URL",
      input: sources({ url: "ftp://a.example/list" }),
      path: "spec.sources[0].url",
      message: 'must be an http or https URL such as "https://big.oisd.nl/"',
    },
    {
      name: "unknown format",
      input: sources({ url: "https://a.example/", format: "ublock" }),
      path: "spec.sources[0].format",
      message: "must be one of: auto, hosts, domains, adblock, regex",
    },
    {
      name: "configMapRef without key",
      input: sources({ configMapRef: { name: "lists" } }),
      path: "spec.sources[0].configMapRef.key",
      message: "is required",
    },
    {
      name: "unknown mode",
      input: withSpec(list, { mode: "deny" }),
      path: "spec.mode",
      message: "must be one of: block, allow",
    },
    {
      name: "refresh below one minute",
      input: withSpec(list, { refreshInterval: "30s" }),
      path: "spec.refreshInterval",
      message:
        'must be a duration of at least 1m such as "30s", "10m" or "24h"',
    },
    {
      name: "customIP response without addresses",
      input: withSpec(list, { response: { mode: "customIP" } }),
      path: "spec.response.customIPs",
      message: "must not be empty when mode is customIP",
    },
    {
      name: "custom IP not an address",
      input: withSpec(list, {
        response: { mode: "customIP", customIPs: ["x"] },
      }),
      path: "spec.response.customIPs[0]",
      message: 'must be an IP address such as "10.0.0.1" or "fd00::1"',
    },
  ];
  for (const c of cases) await t.step(c.name, () => assertIssue(c));
});
