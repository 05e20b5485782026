import assert from "node:assert/strict";
import { queryEvent } from "../../querylog/test_support.ts";
import { queryLogEntry } from "./querylog_entry.ts";

Deno.test("a blocked entry shows the Extended DNS Error its answer carried", () => {
  assert.deepEqual(
    queryLogEntry(queryEvent({
      status: "blocked_list",
      stage: "blocking",
      list: "kids/ads",
      rule: "||ads.example^",
    })).extendedError,
    { infoCode: 15, name: "Blocked", text: "blocked by kids/ads" },
  );
  assert.deepEqual(
    queryLogEntry(queryEvent({
      status: "blocked_list",
      stage: "blocking",
      list: "kids/school",
      rule: "allowOnly",
    })).extendedError,
    {
      infoCode: 17,
      name: "Filtered",
      text: "not on an allow list of allow-only policy kids/school",
    },
  );
  assert.deepEqual(
    queryLogEntry(queryEvent({ status: "cached_stale", stage: "cache" }))
      .extendedError,
    { infoCode: 3, name: "Stale Answer", text: "" },
  );
});

Deno.test("an answer a list let through carries no Extended DNS Error", () => {
  const entry = queryLogEntry(queryEvent({
    status: "forwarded",
    list: "allowed",
    rule: "@@||ok.example^",
  }));
  assert.equal("extendedError" in entry, false);
});
