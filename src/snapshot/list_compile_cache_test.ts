import assert from "node:assert/strict";
import type { BlockList, ListSource } from "../api/v1alpha1/blocklist.ts";
import { memoryLogger } from "../log/logger.ts";
import { openCompiledList } from "../blocking/matcher/mod.ts";
import { type BodyReader, ListCompileCache } from "./list_compile_cache.ts";

function list(mode: "block" | "allow" = "block"): BlockList {
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "BlockList",
    metadata: { name: "ads", namespace: "home" },
    spec: {
      mode,
      sources: [
        { url: "https://lists.example/ads.txt", format: "auto", enabled: true },
        { inline: "||inline.example^", format: "auto", enabled: true },
        { inline: "||disabled.example^", format: "auto", enabled: false },
      ],
    },
  } as BlockList;
}

/** Bodies by URL, with a version that changes whenever the text does. */
function bodies(texts: Record<string, string>): BodyReader {
  return (source: ListSource) => {
    if (source.inline !== undefined) {
      const text = source.inline;
      return { label: "inline", version: "inline", read: () => text };
    }
    const text = texts[source.url ?? ""];
    if (text === undefined) return undefined;
    return {
      label: source.url!,
      version: String(text.length) + text.slice(0, 20),
      read: () => new TextEncoder().encode(text),
    };
  };
}

const blocks = (data: Parameters<typeof openCompiledList>[0], name: string) =>
  openCompiledList(data).check(name)?.outcome === "matched";

Deno.test("ListCompileCache compiles every enabled source of a list", () => {
  const cache = new ListCompileCache(memoryLogger());
  const data = cache.compile(
    "home/ads",
    list(),
    "v1",
    bodies({ "https://lists.example/ads.txt": "||ads.example^\n" }),
  );
  assert.equal(data.key, "home/ads");
  assert.equal(data.ruleCount, 2);
  assert.ok(blocks(data, "x.ads.example."));
  assert.ok(blocks(data, "inline.example."));
  assert.ok(!blocks(data, "disabled.example."), "a disabled source counts not");
});

Deno.test("ListCompileCache reuses the compile when only comments changed, not when a rule did", () => {
  const cache = new ListCompileCache(memoryLogger());
  const url = "https://lists.example/ads.txt";
  const first = cache.compile(
    "home/ads",
    list(),
    "v1",
    bodies({ [url]: "! Last modified: Monday\n||ads.example^\n" }),
  );
  const unchanged = cache.compile(
    "home/ads",
    list(),
    "v1",
    bodies({ [url]: "! Last modified: Tuesday\n||ads.example^\n" }),
  );
  assert.equal(unchanged.data, first.data, "the same shared tables");
  assert.equal(unchanged.digest, first.digest);
  const changed = cache.compile(
    "home/ads",
    list(),
    "v1",
    bodies({
      [url]: "! Last modified: Wednesday\n||ads.example^\n||more.example^\n",
    }),
  );
  assert.notEqual(changed.digest, first.digest);
  assert.ok(blocks(changed, "more.example."));
  const allow = cache.compile(
    "home/ads",
    list("allow"),
    "v2",
    bodies({
      [url]: "! Last modified: Wednesday\n||ads.example^\n||more.example^\n",
    }),
  );
  assert.equal(allow.mode, "allow", "the mode is part of the digest");
});

Deno.test("ListCompileCache skips a source that is not a list and keeps the rest", () => {
  const logger = memoryLogger();
  const cache = new ListCompileCache(logger);
  const data = cache.compile(
    "home/ads",
    list(),
    "v1",
    bodies({
      "https://lists.example/ads.txt": "<!doctype html><html>oops</html>",
    }),
  );
  assert.equal(data.ruleCount, 1, "the inline source only");
  assert.ok(blocks(data, "inline.example."));
  assert.ok(
    logger.lines.some((l) => /Cannot use a block list source.*HTML/i.test(l)),
    logger.lines.join("\n"),
  );
});
