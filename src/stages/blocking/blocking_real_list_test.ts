import assert from "node:assert/strict";
import type { Response } from "../../pipeline/response.ts";
import { createBlockingStage } from "./blocking.ts";
import {
  answering,
  blockingOf,
  blockingRequest,
  decision,
  wireResponse,
} from "./testdata/fixtures.ts";
import { loadRealList } from "./testdata/real_list.ts";

Deno.test("a real list blocks its names, their subdomains and CNAMEs into them", async () => {
  const list = await loadRealList("dns/hagezi-light", "HaGeZi light");
  assert.ok(list.names.length > 100_000, "the whole list was read");
  const blocking = blockingOf([list.data]);
  const policy = decision({ blockLists: ["dns/hagezi-light"] });
  const stage = createBlockingStage();
  // Every 997th name of the file: spread over the list, ~120 names.
  for (let i = 0; i < list.names.length; i += 997) {
    const name = list.names[i]!;
    const direct = await stage.serve(
      blockingRequest(`sub.${name}. A`, blocking, policy),
      answering({ drop: true, status: "forwarded", stage: "upstream" }),
    );
    assert.equal(direct.status, "blocked_list", name);
    assert.equal(direct.list, "HaGeZi light");
    assert.equal(direct.rule, `||${name}^`);

    const req = blockingRequest("www.shop.example. A", blocking, policy, {
      edns: {},
    });
    const viaCname = await stage.serve(
      req,
      answering((r) =>
        wireResponse(r, [`www.shop.example. 300 IN CNAME edge.${name}.`])
      ),
    );
    assert.equal(viaCname.rule, `CNAME edge.${name}.: ||${name}^`);
  }
  // Names the list does not hold pass untouched.
  for (
    const name of ["example.org.", "kudurru.invalid.", "www.wikipedia.org."]
  ) {
    const req = blockingRequest(`${name} A`, blocking, policy);
    const reply: Response = wireResponse(req, [
      `${name} 300 IN A 198.51.100.1`,
    ]);
    assert.equal(await stage.serve(req, answering(reply)), reply, name);
  }
  assert.equal(stage.errors(), 0);
});
