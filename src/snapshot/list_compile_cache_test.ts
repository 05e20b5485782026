import assert from "node:assert/strict";
import type { BlockList, ListSource } from "../api/v1alpha1/blocklist.ts";
import { memoryLogger } from "../log/logger.ts";
import { openCompiledList } from "../blocking/matcher/open.ts";
import {
  type BodyReader,
  ListCompileCache,
  SMALL_LIST_BYTES,
  SMALL_LIST_LANES,
} from "./list_compile_cache.ts";
import { finishWithin } from "./testdata/zone_objects.ts";
import { WorkerControl } from "./testdata/worker_control.ts";

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

/**
 * Bodies by URL, written to files as the list fetcher would, with a version
 * that changes whenever the text does.
 */
function bodies(dir: string, texts: Record<string, string>): BodyReader {
  return (source: ListSource) => {
    if (source.inline !== undefined) {
      return { label: "inline", version: "inline", text: source.inline };
    }
    const text = texts[source.url ?? ""];
    if (text === undefined) return undefined;
    const path = `${dir}/${encodeURIComponent(source.url!)}`;
    Deno.writeTextFileSync(path, text);
    return { label: source.url!, version: text, path };
  };
}

/** A compile cache and a directory for bodies; closed and removed after. */
async function setup(logger = memoryLogger()) {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-compile-" });
  const cache = new ListCompileCache(logger);
  return {
    dir,
    cache,
    logger,
    async compile(
      list: BlockList,
      version: string,
      texts: Record<string, string>,
    ) {
      const data = await cache.compile(
        "home/ads",
        list,
        version,
        bodies(dir, texts),
      );
      assert.ok(data, "compiled");
      return data;
    },
    async [Symbol.asyncDispose]() {
      cache.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const blocks = (data: Parameters<typeof openCompiledList>[0], name: string) =>
  openCompiledList(data).check(name)?.outcome === "matched";

Deno.test("ListCompileCache compiles every enabled source of a list, in its worker", async () => {
  await using env = await setup();
  const data = await env.compile(list(), "v1", {
    "https://lists.example/ads.txt": "||ads.example^\n",
  });
  assert.equal(data.key, "home/ads");
  assert.equal(data.name, "home/ads", "shown with its namespace");
  assert.equal(data.ruleCount, 2);
  assert.ok(blocks(data, "x.ads.example."));
  assert.ok(blocks(data, "inline.example."));
  assert.ok(!blocks(data, "disabled.example."), "a disabled source counts not");
});

Deno.test("ListCompileCache reuses the compile when only comments changed, not when a rule did", async () => {
  await using env = await setup();
  const url = "https://lists.example/ads.txt";
  const first = await env.compile(list(), "v1", {
    [url]: "! Last modified: Monday\n||ads.example^\n",
  });
  const unchanged = await env.compile(list(), "v1", {
    [url]: "! Last modified: Tuesday\n||ads.example^\n",
  });
  assert.equal(unchanged.data, first.data, "the same shared tables");
  assert.equal(unchanged.digest, first.digest);
  const changed = await env.compile(list(), "v1", {
    [url]: "! Last modified: Wednesday\n||ads.example^\n||more.example^\n",
  });
  assert.notEqual(changed.digest, first.digest);
  assert.ok(blocks(changed, "more.example."));
  const allow = await env.compile(list("allow"), "v2", {
    [url]: "! Last modified: Wednesday\n||ads.example^\n||more.example^\n",
  });
  assert.equal(allow.mode, "allow", "the mode is part of the digest");
});

Deno.test("ListCompileCache keeps a list's rules when its downloaded body goes missing from disk", async () => {
  await using env = await setup();
  const url = "https://lists.example/ads.txt";
  const first = await env.compile(list(), "v1", { [url]: "||ads.example^\n" });
  const gone = await env.compile(list(), "v1", {}); // the lists dir was removed
  assert.equal(gone, first, "the last compile, not one without the download");
  assert.ok(blocks(gone, "x.ads.example."));
  assert.match(
    env.logger.lines.join("\n"),
    /missing from disk; keeping its rules/,
  );
  // A spec that drops the source is a real change: compiled without it.
  const spec = list();
  spec.spec!.sources = spec.spec!.sources.slice(1);
  const without = await env.compile(spec, "v2", {});
  assert.ok(!blocks(without, "x.ads.example."));
});

Deno.test("ListCompileCache keeps a list's rules while a new URL of it is not downloaded yet", async () => {
  await using env = await setup();
  const old = "https://lists.example/ads.txt";
  const first = await env.compile(list(), "v1", { [old]: "||ads.example^\n" });
  const moved = list();
  moved.spec!.sources[0]!.url = "https://mirror.example/ads.txt";
  const waiting = await env.compile(moved, "v2", {});
  assert.equal(waiting, first, "the rules in force, not an empty list");
  assert.ok(blocks(waiting, "x.ads.example."));
  assert.match(
    env.logger.lines.join("\n"),
    /keeping its rules until its new sources are downloaded/,
  );
  const fetched = await env.compile(moved, "v2", {
    "https://mirror.example/ads.txt": "||mirror.example^\n",
  });
  assert.ok(blocks(fetched, "mirror.example."), "compiled once it is there");
  assert.ok(!blocks(fetched, "x.ads.example."));
});

Deno.test("ListCompileCache skips a source that is not a list and keeps the rest", async () => {
  await using env = await setup();
  const logger = env.logger;
  const data = await env.compile(list(), "v1", {
    "https://lists.example/ads.txt": "<!doctype html><html>oops</html>",
  });
  assert.equal(data.ruleCount, 1, "the inline source only");
  assert.ok(blocks(data, "inline.example."));
  assert.ok(
    logger.lines.some((l) => /Cannot use block list source.*HTML/i.test(l)),
    logger.lines.join("\n"),
  );
});

Deno.test("ListCompileCache after close answers with the last compile and starts nothing", async () => {
  await using env = await setup();
  const first = await env.compile(list(), "v1", {});
  env.cache.close();
  const again = await env.cache.compile(
    "home/ads",
    list(),
    "v2",
    bodies(env.dir, {}),
  );
  assert.equal(again, first);
});

Deno.test("ListCompileCache names a list of the default namespace by its name alone", async () => {
  await using env = await setup();
  const plain = list();
  plain.metadata.namespace = "default";
  const data = await env.cache.compile("default/ads", plain, "v1", () => ({
    label: "inline",
    version: "inline",
    text: "||ads.example^",
  }));
  assert.equal(data?.name, "ads");
});

Deno.test("ListCompileCache applies an edit at once when the source still missing is an old one", async () => {
  await using env = await setup();
  const dead = list(); // its URL never downloads
  const first = await env.compile(dead, "v1", {});
  assert.ok(blocks(first, "inline.example."));
  const edited = list();
  edited.spec!.sources[1]!.inline = "||edited.example^";
  const second = await env.compile(edited, "v2", {});
  assert.ok(blocks(second, "edited.example."), "the edit applies");
  assert.ok(!blocks(second, "inline.example."));
  const moved = list("allow");
  moved.spec!.sources[0]!.url = "https://mirror.example/ads.txt";
  const allow = await env.compile(moved, "v3", {});
  assert.equal(allow.mode, "allow", "a change of mode never waits");
});

/** A list of one inline source. */
function inlineList(name: string, text: string): BlockList {
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "BlockList",
    metadata: { name, namespace: "home" },
    spec: {
      mode: "block",
      sources: [{ inline: text, format: "auto", enabled: true }],
    },
  } as BlockList;
}

const inline: BodyReader = (source) => ({
  label: "inline",
  version: "inline",
  text: source.inline ?? "",
});

Deno.test("ListCompileCache compiles a small list while large ones fill every slot", async () => {
  using control = new WorkerControl();
  await using env = await setup();
  /** Over SMALL_LIST_BYTES. */
  const large = (tag: string) =>
    Array.from({ length: 60_000 }, (_, i) => `name${i}.${tag}.example`)
      .join("\n");
  for (const n of [1, 2, 3]) {
    const key = `home/big${n}`;
    control.hold(key);
    const state = env.cache.request(
      key,
      inlineList(`big${n}`, large(`big${n}`)),
      "v1",
      inline,
    );
    assert.ok(state.pending && state.data === undefined);
    assert.ok(state.size > SMALL_LIST_BYTES);
  }
  assert.deepEqual(control.jobs, ["home/big1", "home/big2"], "two at once");
  const small = await finishWithin(
    "the small list",
    env.cache.compile(
      "home/small",
      inlineList("small", "ads.example"),
      "v1",
      inline,
    ),
  );
  assert.ok(small && blocks(small, "ads.example."));
  assert.deepEqual(env.cache.loading(), [
    "home/big1",
    "home/big2",
    "home/big3",
  ]);
  control.release("home/big1");
  await finishWithin("the third large list", control.posted("home/big3", 1));
  assert.equal(env.cache.pendingCount(), 2);
});

Deno.test("ListCompileCache runs at most SMALL_LIST_LANES small compiles beside the large ones", async () => {
  using control = new WorkerControl();
  await using env = await setup();
  const keys = Array.from({ length: 6 }, (_, i) => `home/small${i}`);
  for (const key of keys) {
    control.hold(key);
    env.cache.request(
      key,
      inlineList(key.slice(5), `${key.slice(5)}.example`),
      "v1",
      inline,
    );
  }
  // Two large lanes (idle here) and SMALL_LIST_LANES more for small lists.
  assert.equal(control.jobs.length, 2 + SMALL_LIST_LANES);
  control.release(keys[0]!);
  await finishWithin("the next one", control.posted(keys[4]!, 1));
  assert.equal(control.jobs.length, 5);
});

Deno.test("ListCompileCache starts what waits when an edit is undone mid-compile", async () => {
  using control = new WorkerControl();
  await using env = await setup();
  const large = (tag: string) =>
    Array.from({ length: 60_000 }, (_, i) => `name${i}.${tag}.example`)
      .join("\n");
  const lists = [1, 2, 3].map((n) => inlineList(`big${n}`, large(`big${n}`)));
  control.hold("home/big1");
  await finishWithin(
    "big1 v1",
    (async () => {
      const first = env.cache.request("home/big1", lists[0]!, "v1", inline);
      assert.ok(first.pending);
      control.release("home/big1");
      for (let i = 0; i < 600 && env.cache.pendingCount() > 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
    })(),
  );
  // big1 edited (compiling), big2 compiling, big3 queued behind them.
  for (const key of ["home/big1", "home/big2", "home/big3"]) control.hold(key);
  env.cache.request(
    "home/big1",
    inlineList("big1", large("edited")),
    "v2",
    inline,
  );
  env.cache.request("home/big2", lists[1]!, "v1", inline);
  env.cache.request("home/big3", lists[2]!, "v1", inline);
  assert.equal(control.jobs.includes("home/big3"), false, "queued");
  // The edit is undone (the very inputs compiled before): big1's compile
  // is abandoned and big3 takes its lane.
  env.cache.request("home/big1", lists[0]!, "v1", inline);
  await finishWithin("big3 starts", control.posted("home/big3", 1));
});
