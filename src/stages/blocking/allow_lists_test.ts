/**
 * Lists written the way AdGuard Home users write them, compiled the way a
 * node compiles them (the compile job: parser, `$badfilter`, matcher) and
 * asked through the stage: `@@` lines that allow on their own.
 */
import assert from "node:assert/strict";
import type { CompiledListData } from "../../blocking/types.ts";
import type { PolicyDecision } from "../../blocking/blocking_snapshot.ts";
import type { Response } from "../../pipeline/response.ts";
import { runCompileJob } from "../../snapshot/list_compile_job.ts";
import { createBlockingStage } from "./blocking.ts";
import {
  answering,
  blockingOf,
  blockingRequest,
  decision,
  wireResponse,
} from "./testdata/fixtures.ts";

function compiled(
  name: string,
  mode: "block" | "allow",
  text: string,
): CompiledListData {
  const result = runCompileJob({
    id: 1,
    meta: { key: `dns/${name}`, name, mode },
    sources: [{ label: "inline", format: "auto", text }],
  });
  assert.ok("data" in result, "compiled");
  return result.data;
}

const LISTS = [
  compiled(
    "edge-adblock",
    "block",
    "||blocked.test^\n||imp.test^\n||imp2.test^\n",
  ),
  compiled("fixes", "block", "@@||cloak.site.test^\n"),
  // Default mode, named in allowListRefs (the audit's repro).
  compiled(
    "myallow",
    "block",
    "@@||imp.test^\n@@||sub9.blocked.test^\nsub8.blocked.test\n",
  ),
  compiled("adguard-allow", "allow", "@@||imp2.test^\n"),
];
const EDGE = ["dns/edge-adblock"];

/** The stage's answer to `q` when the upstream answers `records`. */
async function serve(
  q: string,
  policy: PolicyDecision,
  records: string[] = [],
): Promise<Response> {
  const req = blockingRequest(q, blockingOf(LISTS), policy);
  const stage = createBlockingStage();
  const res = await stage.serve(
    req,
    answering((r) => wireResponse(r, records)),
  );
  assert.equal(stage.errors(), 0);
  return res;
}

Deno.test("allow lists: every line of a list named in allowListRefs allows, @@ ones too", async (t) => {
  const policy = decision({
    blockLists: EDGE,
    allowLists: ["dns/myallow", "dns/adguard-allow"],
  });
  const rows = [
    ["imp.test. A", "myallow", "@@||imp.test^"],
    ["sub9.blocked.test. A", "myallow", "@@||sub9.blocked.test^"],
    ["sub8.blocked.test. A", "myallow", "sub8.blocked.test"],
    ["x.imp2.test. A", "adguard-allow", "@@||imp2.test^"],
  ];
  for (const [q, list, rule] of rows) {
    await t.step(q!, async () => {
      const res = await serve(q!, policy);
      assert.equal(res.status, "forwarded");
      assert.equal(res.list, list);
      assert.equal(res.rule, rule);
    });
  }
  await t.step("a name none allows is still blocked", async () => {
    const res = await serve("sub7.blocked.test. A", policy);
    assert.equal(res.status, "blocked_list");
    assert.equal(res.rule, "||blocked.test^");
  });
});

Deno.test("allow lists: an exceptions-only block list unbreaks a site behind a blocked CNAME", async () => {
  const cname = [
    "cloak.site.test. 300 IN CNAME tracker.blocked.test.",
    "tracker.blocked.test. 300 IN A 192.0.2.7",
  ];
  const withFixes = await serve(
    "cloak.site.test. A",
    decision({ blockLists: [...EDGE, "dns/fixes"] }),
    cname,
  );
  assert.equal(withFixes.status, "forwarded", "answer not inspected");
  assert.equal(withFixes.list, "fixes");
  assert.equal(withFixes.rule, "@@||cloak.site.test^");

  const without = await serve(
    "cloak.site.test. A",
    decision({ blockLists: EDGE }),
    cname,
  );
  assert.equal(without.status, "blocked_list");
  assert.equal(without.rule, "CNAME tracker.blocked.test.: ||blocked.test^");
});
