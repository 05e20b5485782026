/** blockListStatus: what each kind of source reports and how Ready is decided. */
import assert from "node:assert/strict";
import type { ListFormat } from "../blocking/types.ts";
import type { ListFileMeta, SourceCounts } from "../blocking/list_meta.ts";
import {
  blockListStatus,
  CONFIG_MAP_UNSUPPORTED,
  type SourceFacts,
  type UrlKnowledge,
} from "./list_fetch_status.ts";
import { blockList } from "./list_fetch_testing.ts";

const NOW = new Date("2025-07-01T10:00:00Z");
const LATER = new Date("2025-07-01T11:00:00Z");
const A = "https://lists.example/a.txt";
const B = "https://lists.example/b.txt";

function meta(url: string, counts: SourceCounts): ListFileMeta {
  return {
    url,
    digest: "d".repeat(64),
    size: 10,
    fetchedAt: NOW.toISOString(),
    etag: '"e"',
    counts: { auto: counts },
  };
}

const COUNTS: SourceCounts = {
  format: "domains",
  ruleCount: 10,
  invalid: 1,
  unsupported: 2,
  title: "T",
  examples: ["line 3: ex@mple: not a domain name"],
};

function facts(urls: Record<string, UrlKnowledge>): SourceFacts {
  return {
    url: (url) => urls[url],
    inline: (text: string, _format: ListFormat) =>
      text.includes("<html")
        ? { error: "the body is an HTML page, not a list" }
        : {
          format: "domains",
          ruleCount: text.trim().split("\n").length,
          invalid: 0,
          unsupported: 0,
        },
  };
}

function ready(status: ReturnType<typeof blockListStatus>) {
  const c = status?.conditions?.find((c) => c.type === "Ready");
  return [c?.status, c?.reason, c?.message];
}

Deno.test("nothing is written while a URL has no copy and no answer yet", () => {
  const list = blockList("l", [{ url: A, format: "auto", enabled: true }]);
  assert.equal(blockListStatus(list, facts({}), NOW), undefined);
  assert.equal(blockListStatus(list, facts({ [A]: {} }), NOW), undefined);
  // A copy without counts for the declared format: a recount is on its way.
  const other = { ...meta(A, COUNTS), counts: { hosts: COUNTS } };
  assert.equal(
    blockListStatus(list, facts({ [A]: { meta: other } }), NOW),
    undefined,
  );
});

Deno.test("Ready follows the worst source: failed, stale, fetched", () => {
  const src = (url: string) => ({ url, format: "auto", enabled: true });
  const list = blockList("l", [src(A), src(B)]);
  const good = { meta: meta(A, COUNTS) };
  const cases: [string, Record<string, UrlKnowledge>, unknown[]][] = [
    ["fetched", { [A]: good, [B]: { meta: meta(B, COUNTS) } }, [
      "True",
      "Fetched",
      "20 rules from 2 sources",
    ]],
    [
      "stale",
      { [A]: good, [B]: { meta: meta(B, COUNTS), error: "HTTP 500" } },
      [
        "True",
        "ServingStale",
        `Serving the last good copy of 1 of 2 sources: ${B}: HTTP 500`,
      ],
    ],
    ["failed", { [A]: good, [B]: { error: "timed out after 30 s" } }, [
      "False",
      "SourcesFailed",
      `1 of 2 sources without rules: ${B}: timed out after 30 s`,
    ]],
  ];
  for (const [name, urls, want] of cases) {
    assert.deepEqual(
      ready(blockListStatus(list, facts(urls), NOW)),
      want,
      name,
    );
  }
});

Deno.test("URL entries carry the copy's facts and the last error", () => {
  const list = blockList("l", [{
    url: A,
    format: "auto",
    enabled: true,
    name: "A",
  }]);
  const status = blockListStatus(
    list,
    facts({
      [A]: {
        meta: { ...meta(A, COUNTS), lastModified: "LM" },
        error: "HTTP 503",
      },
    }),
    NOW,
  );
  assert.deepEqual(status?.sources, [{
    url: A,
    name: "A",
    etag: '"e"',
    lastModified: "LM",
    digest: "d".repeat(64),
    lastFetched: NOW.toISOString(),
    ruleCount: 10,
    invalid: 1,
    unsupported: 2,
    title: "T",
    examples: ["line 3: ex@mple: not a domain name"],
    error: "HTTP 503",
  }]);
});

Deno.test("inline, disabled and configMapRef sources", () => {
  const list = blockList("l", [
    {
      inline: "a.example\nb.example\n",
      format: "auto",
      enabled: true,
      name: "mine",
    },
    { inline: "<html>", format: "auto", enabled: true },
    { url: A, format: "auto", enabled: false },
    { inline: "c.example", format: "auto", enabled: false },
    { configMapRef: { name: "cm", key: "k" }, format: "auto", enabled: true },
  ]);
  const status = blockListStatus(list, facts({}), NOW);
  assert.deepEqual(status?.sources, [
    { name: "mine", ruleCount: 2, invalid: 0, unsupported: 0 },
    { error: "the body is an HTML page, not a list" },
    { url: A },
    {},
    { error: CONFIG_MAP_UNSUPPORTED },
  ]);
  assert.deepEqual(ready(status)[0], "False");
  assert.match(String(ready(status)[2]), /^2 of 3 sources without rules/);
});

Deno.test("lastTransitionTime moves only when Ready flips; other fields are kept", () => {
  const list = blockList("l", [{ url: A, format: "auto", enabled: true }]);
  list.metadata.generation = 3;
  const ok = facts({ [A]: { meta: meta(A, COUNTS) } });
  const first = blockListStatus(list, ok, NOW);
  assert.ok(first);
  const again = blockListStatus({ ...list, status: first }, ok, LATER);
  assert.deepEqual(again, first);
  assert.equal(first?.observedGeneration, 3);
  assert.equal(first?.conditions?.[0]?.observedGeneration, 3);
  const failed = blockListStatus(
    { ...list, status: first },
    facts({ [A]: { error: "HTTP 404 Not Found" } }),
    LATER,
  );
  assert.equal(
    failed?.conditions?.[0]?.lastTransitionTime,
    LATER.toISOString(),
  );
  assert.notEqual(
    first?.conditions?.[0]?.lastTransitionTime,
    LATER.toISOString(),
  );
});
