import { deepEqual, equal } from "node:assert/strict";
import {
  draftOf,
  filterSettings,
  groupBySection,
  inputKind,
  issuesByKey,
  lockOf,
  mergePatchOf,
  originOf,
  parseDraft,
  type Setting,
  shownValue,
} from "./settings_form.ts";

function setting(key: string, more: Partial<Setting> = {}): Setting {
  return {
    key,
    value: "",
    source: "file",
    help: "",
    type: "string",
    env: `KUDURRU_${key.toUpperCase().replaceAll(".", "__")}`,
    hostOnly: false,
    envLocked: false,
    restartRequired: false,
    live: true,
    pendingRestart: false,
    ...more,
  };
}

Deno.test("groupBySection keeps the API's order and each section's help", () => {
  const sections = groupBySection([
    setting("cache.maxTTL"),
    setting("cache.prefetch.window"),
    setting("blocking.enabled"),
    setting("cache.minTTL"),
  ], { cache: "Answers kept" });
  deepEqual(
    sections.map((s) => [s.name, s.help, s.settings.map((k) => k.key)]),
    [
      ["cache", "Answers kept", [
        "cache.maxTTL",
        "cache.prefetch.window",
        "cache.minTTL",
      ]],
      ["blocking", "", ["blocking.enabled"]],
    ],
  );
});

Deno.test("filterSettings matches every word in the key or the help", () => {
  const all = [
    setting("cache.maxTTL", { help: "Longest TTL an answer is cached for" }),
    setting("cache.minTTL", { help: "Shortest TTL an answer is cached for" }),
    setting("blocking.blockTTL", { help: "TTL of blocked answers" }),
  ];
  deepEqual(filterSettings(all, "").length, 3);
  deepEqual(filterSettings(all, "ttl cached").map((s) => s.key), [
    "cache.maxTTL",
    "cache.minTTL",
  ]);
  deepEqual(filterSettings(all, "  LONGEST ").map((s) => s.key), [
    "cache.maxTTL",
  ]);
});

Deno.test("inputKind: boolean a checkbox, enum a select, numbers, text, JSON for lists and maps", () => {
  equal(inputKind({ type: "boolean" }), "checkbox");
  equal(inputKind({ type: "enum", allowed: ["a", "b"] }), "select");
  equal(inputKind({ type: "enum" }), "text", "an enum without its values");
  equal(inputKind({ type: "integer" }), "number");
  equal(inputKind({ type: "number" }), "number");
  equal(inputKind({ type: "duration" }), "text");
  equal(inputKind({ type: "size" }), "text");
  equal(inputKind({ type: "string" }), "text");
  equal(inputKind({ type: "address" }), "text");
  equal(inputKind({ type: "list of strings" }), "json");
  equal(inputKind({ type: "list of IP addresses" }), "json");
  equal(inputKind({ type: "map of objects" }), "json");
});

Deno.test("lockOf: host-only, set by the environment now, or always read-only", () => {
  equal(lockOf(setting("cache.maxTTL")), undefined);
  equal(lockOf(setting("node.name", { hostOnly: true })), "host");
  equal(
    lockOf(setting("cache.maxTTL", { envLocked: true, source: "env" })),
    "env",
  );
  equal(
    lockOf(setting("auth.bootstrap.adminPassword", { envLocked: true })),
    "envAlways",
  );
});

Deno.test("originOf tells the default from a value in the file", () => {
  equal(originOf(setting("a.b", { value: "24h", default: "24h" })), "default");
  equal(originOf(setting("a.b", { value: "12h", default: "24h" })), "file");
  equal(originOf(setting("a.b", { value: [], default: [] })), "default");
  equal(originOf(setting("a.b", { value: "x" })), "file", "no default known");
  equal(originOf(setting("a.b", { source: "api", value: "24h" })), "api");
  equal(originOf(setting("a.b", { source: "env" })), "env");
});

Deno.test("draftOf and parseDraft go back and forth for every kind", () => {
  equal(draftOf(true, "checkbox"), true);
  equal(draftOf(undefined, "checkbox"), false);
  equal(draftOf(500, "number"), "500");
  equal(draftOf("24h", "text"), "24h");
  equal(draftOf(undefined, "text"), "");
  equal(draftOf(["a"], "json"), '[\n  "a"\n]');
  deepEqual(parseDraft(false, "checkbox"), { value: false });
  deepEqual(parseDraft(" 42 ", "number"), { value: 42 });
  deepEqual(parseDraft("4x", "number"), { error: "must be a number" });
  deepEqual(parseDraft("", "number"), { error: "must be a number" });
  deepEqual(parseDraft(" 1h ", "text"), { value: "1h" });
  deepEqual(parseDraft("zeroIP", "select"), { value: "zeroIP" });
  deepEqual(parseDraft('{"24": 6000}', "json"), { value: { "24": 6000 } });
  equal("error" in parseDraft("[1,", "json"), true);
  for (const [value, kind] of [[12, "number"], [["x"], "json"]] as const) {
    deepEqual(parseDraft(draftOf(value, kind), kind), { value });
  }
});

Deno.test("shownValue says nothing, yes/no, text or JSON", () => {
  equal(shownValue(""), "—");
  equal(shownValue(undefined), "—");
  equal(shownValue(true), "yes");
  equal(shownValue("12h"), "12h");
  equal(shownValue(5), "5");
  equal(shownValue(["a", "b"]), '["a","b"]');
});

Deno.test("mergePatchOf nests dotted keys; null gives a key back to the file", () => {
  deepEqual(
    mergePatchOf(
      new Map<string, unknown>([
        ["cache.maxTTL", "1h"],
        ["cache.prefetch.threshold", 3],
        ["cache.minTTL", null],
        ["ratelimit.enabled", false],
        ["upstreams.groups", { default: { servers: ["192.0.2.1:53"] } }],
      ]),
    ),
    {
      cache: { maxTTL: "1h", prefetch: { threshold: 3 }, minTTL: null },
      ratelimit: { enabled: false },
      upstreams: { groups: { default: { servers: ["192.0.2.1:53"] } } },
    },
  );
  deepEqual(mergePatchOf(new Map()), {});
});

Deno.test("issuesByKey puts the API's issues under their keys, the rest apart", () => {
  const keys = ["cache.maxTTL", "cache.minTTL", "upstreams.groups"];
  deepEqual(
    issuesByKey([
      { path: "cache.maxTTL", message: "is set by KUDURRU_CACHE__MAXTTL" },
      { path: "", message: "cache.minTTL: must not be longer than maxTTL" },
      {
        path: "",
        message:
          'upstreams.groups.default.timeout: must be a duration such as "2s"',
      },
      { path: "", message: "cache.minTTL (from KUDURRU_X): again" },
      { path: "cache.maxTtl", message: "unknown setting" },
      { path: "", message: "something else went wrong" },
    ], keys),
    {
      byKey: {
        "cache.maxTTL": "is set by KUDURRU_CACHE__MAXTTL",
        "cache.minTTL": "must not be longer than maxTTL; again",
        "upstreams.groups": 'default.timeout: must be a duration such as "2s"',
      },
      rest: ["cache.maxTtl: unknown setting", "something else went wrong"],
    },
  );
  deepEqual(
    issuesByKey([{ path: "", message: "blocking.customIPs[0]: bad" }], [
      "blocking.customIPs",
    ]).byKey,
    { "blocking.customIPs": "[0]: bad" },
  );
});
