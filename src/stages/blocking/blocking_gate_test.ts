import assert from "node:assert/strict";
import type { CompiledListData, ListMatcher } from "../../blocking/types.ts";
import type {
  BlockingSnapshot,
  PolicyDecision,
} from "../../blocking/blocking_snapshot.ts";
import type { Request } from "../../pipeline/request.ts";
import type { Response } from "../../pipeline/response.ts";
import { requestFor } from "../../testing/fixtures.ts";
import { createBlockingStageWith } from "./blocking_stage.ts";
import {
  answering,
  blockingOf,
  blockingRequest,
  decision,
  rules,
  wireResponse,
} from "./testdata/fixtures.ts";
import { openSetList, setListData } from "./testdata/set_matcher.ts";

const ADS = setListData(
  { key: "dns/ads", name: "Ads", mode: "block" },
  rules("||ads.example^", "192.0.2.66"),
);
const BLOCK_ADS = decision({ blockLists: ["dns/ads"] });
const NOW = 1_700_000_000_000;

interface GateRow {
  name: string;
  req: () => Request;
  blocked: boolean;
}

function adsRequest(
  blocking: Partial<BlockingSnapshot> | undefined,
  policy: PolicyDecision | undefined = BLOCK_ADS,
  question = "ads.example. A",
): Request {
  const snapshot = blocking && blockingOf([ADS], blocking);
  return blockingRequest(question, snapshot, policy);
}

const GATES: GateRow[] = [
  {
    name: "blocks when every condition holds",
    req: () => adsRequest({}),
    blocked: true,
  },
  {
    name: "no snapshot: passes",
    req: () => requestFor("ads.example. A"),
    blocked: false,
  },
  {
    name: "no blocking data: passes",
    req: () => adsRequest(undefined),
    blocked: false,
  },
  {
    name: "enabled false: passes",
    req: () => adsRequest({ enabled: false }),
    blocked: false,
  },
  {
    name: "disabledUntil in the future: passes",
    req: () => adsRequest({ disabledUntil: NOW + 1 }),
    blocked: false,
  },
  {
    name: "disabledUntil now: blocks again",
    req: () => adsRequest({ disabledUntil: NOW }),
    blocked: true,
  },
  {
    name: "disabledUntil in the past: blocks",
    req: () => adsRequest({ disabledUntil: NOW - 300_000 }),
    blocked: true,
  },
  {
    name: "no policy: passes",
    req: () => blockingRequest("ads.example. A", blockingOf([ADS]), undefined),
    blocked: false,
  },
  {
    name: "class CH: passes",
    req: () => {
      const snapshot = blockingOf([ADS]);
      const req = blockingRequest("ads.example. TXT", snapshot, BLOCK_ADS, {
        qclass: "CH",
      });
      return req;
    },
    blocked: false,
  },
  {
    name: "class ANY: blocked, it asks for the IN data too",
    req: () =>
      blockingRequest("ads.example. A", blockingOf([ADS]), BLOCK_ADS, {
        qclass: "ANY",
      }),
    blocked: true,
  },
  {
    name: "no question: passes",
    req: () => {
      const req = adsRequest({});
      return {
        ...req,
        query: { ...req.query, question: undefined },
        qname: "",
      };
    },
    blocked: false,
  },
];

Deno.test("blocking applies only when it is on and the query asks for IN data", async (t) => {
  const stage = createBlockingStageWith(openSetList, { now: () => NOW });
  for (const row of GATES) {
    await t.step(row.name, async () => {
      const req = row.req();
      const passed: Response = {
        drop: true,
        status: "forwarded",
        stage: "upstream",
      };
      const next = answering(passed);
      const res = await stage.serve(req, next);
      if (row.blocked) {
        assert.equal(res.status, "blocked_list");
        assert.equal(next.calls, 0);
      } else {
        assert.equal(res, passed);
        assert.equal(next.calls, 1);
      }
    });
  }
});

Deno.test("a disable ends when the clock passes disabledUntil", async () => {
  let now = NOW;
  const stage = createBlockingStageWith(openSetList, { now: () => now });
  const req = adsRequest({ disabledUntil: NOW + 60_000 });
  const passed: Response = {
    drop: true,
    status: "forwarded",
    stage: "upstream",
  };
  assert.equal(await stage.serve(req, answering(passed)), passed);
  now += 60_001;
  assert.equal(
    (await stage.serve(req, answering(passed))).status,
    "blocked_list",
  );
});

Deno.test("lists are opened once per snapshot and decisions resolved once", async () => {
  const opened: string[] = [];
  const open = (data: CompiledListData): ListMatcher => {
    opened.push(data.key);
    return openSetList(data);
  };
  const stage = createBlockingStageWith(open);
  const blocking = blockingOf([ADS]);
  const next = answering((req) => wireResponse(req, []));
  for (let i = 0; i < 3; i++) {
    await stage.serve(
      blockingRequest("example.org. A", blocking, BLOCK_ADS),
      next,
    );
  }
  assert.deepEqual(opened, ["dns/ads"]);
  // A new snapshot object opens its lists again.
  await stage.serve(
    blockingRequest("example.org. A", blockingOf([ADS]), BLOCK_ADS),
    next,
  );
  assert.deepEqual(opened, ["dns/ads", "dns/ads"]);
  // The old snapshot is still served from its own lists (a query in flight across a swap).
  await stage.serve(
    blockingRequest("example.org. A", blocking, BLOCK_ADS),
    next,
  );
  assert.deepEqual(opened, ["dns/ads", "dns/ads"]);
});

Deno.test("a list that cannot be opened blocks nothing and is counted", async () => {
  const stage = createBlockingStageWith(() => {
    throw new Error("corrupt list data");
  });
  const passed: Response = {
    drop: true,
    status: "forwarded",
    stage: "upstream",
  };
  const res = await stage.serve(adsRequest({}), answering(passed));
  assert.equal(res, passed);
  assert.equal(stage.errors(), 1);
});

Deno.test("a matcher that throws lets the query through and is counted", async () => {
  const broken = (data: CompiledListData): ListMatcher => ({
    ...openSetList(data),
    check() {
      throw new Error("matcher bug");
    },
  });
  const stage = createBlockingStageWith(broken);
  const passed: Response = {
    drop: true,
    status: "forwarded",
    stage: "upstream",
  };
  assert.equal(await stage.serve(adsRequest({}), answering(passed)), passed);
  // Inspection of an answer fails the same way: the answer passes.
  const req = adsRequest({}, BLOCK_ADS, "ok.example. A");
  const calls: number[] = [];
  const reply = wireResponse(req, ["ok.example. 300 IN A 192.0.2.66"]);
  const res = await stage.serve(req, () => {
    calls.push(1);
    return reply;
  });
  assert.equal(res, reply);
  assert.equal(stage.errors(), 2);
});

Deno.test("a synchronous next is inspected synchronously", () => {
  const stage = createBlockingStageWith(openSetList);
  const req = adsRequest({}, BLOCK_ADS, "www.example.org. A");
  const res = stage.serve(
    req,
    (r) => wireResponse(r, ["www.example.org. 300 IN A 192.0.2.66"]),
  );
  assert.ok(!(res instanceof Promise));
  assert.equal(res.status, "blocked_list");
  assert.equal(res.rule, "A 192.0.2.66: 192.0.2.66");
});

Deno.test("garbage in a wire answer is not blocked", async (t) => {
  const stage = createBlockingStageWith(openSetList);
  const req = adsRequest({}, BLOCK_ADS, "www.example.org. A");
  const good = wireResponse(req, ["www.example.org. 300 IN A 192.0.2.66"])
    .wire!;
  const cases: Record<string, Uint8Array> = {
    "empty": new Uint8Array(0),
    "header only, counts claim records": Uint8Array.from([
      0,
      1,
      0x81,
      0x80,
      0,
      1,
      0,
      5,
      0,
      0,
      0,
      0,
    ]),
    "truncated in the record": good.subarray(0, good.length - 2),
    "rdlength beyond the end": withRdlength(good, 200),
    "pointer loop in a CNAME target": cnameLoop(req),
  };
  for (const [name, wire] of Object.entries(cases)) {
    await t.step(name, async () => {
      const reply: Response = { wire, status: "forwarded", stage: "upstream" };
      assert.equal(await stage.serve(req, answering(reply)), reply);
    });
  }
  assert.equal(stage.errors(), 0, "garbage is no error of ours");
});

/** `wire` with the last record's RDLENGTH set to `length`. */
function withRdlength(wire: Uint8Array, length: number): Uint8Array {
  const copy = wire.slice();
  copy[copy.length - 6] = length >> 8;
  copy[copy.length - 5] = length & 0xff;
  return copy;
}

/** An answer whose only record is a CNAME pointing at itself. */
function cnameLoop(req: Request): Uint8Array {
  const wire = wireResponse(req, ["www.example.org. 300 IN CNAME a.b."]).wire!;
  const at = wire.length - 5; // "a.b." is 5 octets: 1 a 1 b 0
  const copy = wire.slice(0, at + 2);
  copy[at] = 0xc0 | (at >> 8);
  copy[at + 1] = at & 0xff;
  copy[at - 1] = 2; // RDLENGTH low octet
  copy[at - 2] = 0;
  return copy;
}
