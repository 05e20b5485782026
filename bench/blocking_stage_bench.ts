/**
 * Costs of the blocking stage per query, with a real 122k-name list:
 * `deno bench --allow-read bench/blocking_stage_bench.ts`
 */
import type { Response } from "../src/pipeline/response.ts";
import { createBlockingStage } from "../src/stages/blocking/blocking.ts";
import {
  blockingOf,
  blockingRequest,
  decision,
  wireResponse,
} from "../src/stages/blocking/testdata/fixtures.ts";
import { loadRealList } from "../src/stages/blocking/testdata/real_list.ts";

const list = await loadRealList("dns/hagezi-light", "HaGeZi light");
const blocking = blockingOf([list.data]);
const policy = decision({ blockLists: ["dns/hagezi-light"] });
const stage = createBlockingStage();
const passed: Response = { drop: true, status: "forwarded", stage: "upstream" };

const noPolicy = blockingRequest("www.example.org. A", blocking, undefined);
const emptyAnswer = blockingRequest("www.example.org. A", blocking, policy);
const emptyReply = wireResponse(emptyAnswer, []);
const chained = blockingRequest("www.example.org. A", blocking, policy);
const chainedReply = wireResponse(chained, [
  "www.example.org. 300 IN CNAME www.example.org.cdn.cloudflare.net.",
  "www.example.org.cdn.cloudflare.net. 300 IN A 104.16.1.1",
  "www.example.org.cdn.cloudflare.net. 300 IN A 104.16.2.1",
]);
const blocked = blockingRequest(`www.${list.names[5000]}. A`, blocking, policy);

Deno.bench("pass-through: no policy", () => {
  stage.serve(noPolicy, () => passed);
});
Deno.bench("question miss, answer without records", () => {
  stage.serve(emptyAnswer, () => emptyReply);
});
Deno.bench("question miss, CNAME + 2 A inspected in the wire", () => {
  stage.serve(chained, () => chainedReply);
});
Deno.bench("question blocked (zeroIP answer built)", () => {
  stage.serve(blocked, () => passed);
});
