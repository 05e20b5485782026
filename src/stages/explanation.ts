/**
 * Turns what PipelineQueryHandler.explain found into an Explanation: plain
 * data, with the answer summarised as the query log summarises it.
 */
import { rcodeName } from "../dns/wire/rcode_name.ts";
import { typeName } from "../dns/wire/constants.ts";
import type { Explanation } from "../pipeline/explanation.ts";
import type { Explained } from "../pipeline/query_handler.ts";
import { summarizeAnswer } from "./log/answer_summary.ts";

/** The Explanation of `explained`, asked for `client`. */
export function explanationOf(
  explained: Explained,
  client: string,
): Explanation {
  const { request: req, response: res, bytes } = explained;
  const summary = bytes === null ? undefined : summarizeAnswer(bytes);
  const question = req?.query.question;
  const policy = req?.policy;
  return {
    name: req?.qname ?? "",
    type: question ? typeName(question.type) : "",
    client,
    status: res.status,
    stage: res.stage,
    rcode: rcodeName(res.message?.rcode ?? summary?.rcode ?? -1),
    answer: summary?.text ?? "",
    groups: [...(req?.groups ?? [])],
    policies: [...(policy?.policies ?? [])],
    blockLists: [...(policy?.blockLists ?? [])],
    allowLists: [...(policy?.allowLists ?? [])],
    ...(req?.zone !== undefined && { zone: req.zone }),
    ...(res.list !== undefined && { list: res.list }),
    ...(res.rule !== undefined && { rule: res.rule }),
    ...(res.route !== undefined && { route: { ...res.route } }),
    ...(req?.malformed !== undefined && { malformed: req.malformed.message }),
  };
}
