import assert from "node:assert/strict";
import { compileRules } from "../../blocking/matcher/compiler.ts";
import type { CompiledListData } from "../../blocking/types.ts";
import type { Response } from "../../pipeline/response.ts";
import { decodeResponse } from "../../testing/decode_response.ts";
import { createBlockingStageWith } from "./blocking_stage.ts";
import { type BlockingStage, createBlockingStage } from "./blocking.ts";
import {
  answering,
  blockingOf,
  blockingRequest,
  decision,
  messageResponse,
  wireResponse,
} from "./testdata/fixtures.ts";
import { TEST_LISTS } from "./testdata/lists.ts";
import { QUESTION_ROWS } from "./testdata/question_rows.ts";
import { answerRows, NOT_INSPECTED_ROWS } from "./testdata/answer_rows.ts";
import type { Blocked, Row } from "./testdata/table_row.ts";
import { openSetList, setListData } from "./testdata/set_matcher.ts";

/** How a test compiles its lists and makes the stage that opens them. */
interface ListKit {
  compile: typeof setListData;
  stage: () => BlockingStage;
}

/** The real compiler, and the stage with its default opener (openCompiledList). */
const REAL_KIT: ListKit = {
  compile(meta, rules) {
    const data = compileRules(meta, rules);
    // The snapshot assembler sets a list's own response, not the compiler.
    if (meta.response !== undefined) data.response = meta.response;
    return data;
  },
  stage: () => createBlockingStage(),
};

/** The Set-based test double (so a matcher bug and a stage bug tell apart). */
const SET_KIT: ListKit = {
  compile: setListData,
  stage: () => createBlockingStageWith(openSetList),
};

function snapshotLists(kit: ListKit): CompiledListData[] {
  return TEST_LISTS.map((list) => kit.compile(list.meta, list.rules));
}

const ROWS: Row[] = [
  ...QUESTION_ROWS,
  ...answerRows("wire"),
  ...answerRows("message"),
  ...NOT_INSPECTED_ROWS,
];

async function runTable(t: Deno.TestContext, kit: ListKit) {
  const blocking = blockingOf(snapshotLists(kit));
  const stage = kit.stage();
  for (const row of ROWS) {
    await t.step(row.name, async () => {
      const req = blockingRequest(
        row.q,
        blocking,
        decision(row.policy),
        row.edns === false ? {} : { edns: {} },
      );
      const reply =
        (row.carrier === "message" ? messageResponse : wireResponse)(
          req,
          row.upstream ?? [],
          row.status,
        );
      const next = answering(reply);
      const res = await stage.serve(req, next);
      const expected = row.blocked;
      if (row.allowed !== undefined) {
        assert.deepEqual(res, { ...reply, ...row.allowed }, "named, passed");
        assert.notEqual(res, reply, "a copy: the cache may share the answer");
        assert.equal(reply.list, undefined);
        assert.equal(next.calls, 1);
        return;
      }
      if (expected === undefined) {
        assert.equal(res, reply, "the answer passes untouched");
        assert.equal(next.calls, 1);
        return;
      }
      assertBlocked(res, expected);
      // A block of the question never asks the rest of the chain.
      assert.equal(next.calls, row.upstream === undefined ? 0 : 1);
      const decoded = decodeResponse(req, res)!;
      assert.equal(decoded.rcode, expected.rcode);
      assert.deepEqual(decoded.answer, expected.answer ?? []);
      assert.deepEqual(decoded.authority, expected.authority ?? []);
      assert.equal(decoded.question.length, 1);
      assert.equal(res.message?.ra, true);
      const ede = decoded.opt?.options.find((o) => o.code === 15);
      if (expected.ede === null) {
        assert.equal(decoded.opt, undefined);
      } else {
        assert.ok(ede, "an EDE option");
        assert.equal((ede.data[0]! << 8) | ede.data[1]!, expected.ede[0]);
        assert.equal(
          new TextDecoder().decode(ede.data.subarray(2)),
          expected.ede[1],
        );
      }
    });
  }
  assert.equal(stage.errors(), 0);
}

function assertBlocked(res: Response, expected: Blocked): void {
  assert.equal(res.status, "blocked_list");
  assert.equal(res.stage, "blocking");
  assert.equal(res.list, expected.list);
  assert.equal(res.rule, expected.rule);
  assert.equal(res.cacheable, false);
}

Deno.test("blocking decides in order (real compiled lists)", async (t) => {
  await runTable(t, REAL_KIT);
});

Deno.test("blocking decides in order (test double lists)", async (t) => {
  await runTable(t, SET_KIT);
});
