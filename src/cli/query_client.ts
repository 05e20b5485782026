/**
 * `kudurru query NAME [TYPE] --client IP`: what the server would answer
 * that client, and why. A query this machine sends comes from this
 * machine's address, so the answer another client gets (its groups, its
 * policy, its block lists) can only be asked of the server itself: the
 * API's why route runs the question through a listener's data plane for
 * that client, forwarding, counting and logging nothing.
 */
import type { Explanation } from "../pipeline/explanation.ts";
import type { CommandIO } from "./command.ts";
import { ApiObjects } from "./api_objects.ts";
import { resolveTarget, whereOf } from "./target.ts";

/** Asks the why route of `--context` (or the current context) and prints it. */
export async function queryForClient(
  question: { name: string; type: string; client: string },
  opts: { context?: string | undefined; json: boolean },
  io: CommandIO,
): Promise<number> {
  const target = await resolveTarget("query", { context: opts.context }, io);
  if (target.kind === "local") {
    throw new Error(
      "--client asks a server's API what it would answer that client: run kudurru login --server URL first (or pass --context NAME)",
    );
  }
  using api = await ApiObjects.open(target.context);
  const query = new URLSearchParams(question).toString();
  const why = await api.call("GET", `/api/v1/why?${query}`) as Explanation;
  io.stdout(
    opts.json
      ? JSON.stringify({ server: whereOf(target.context), why }, null, 2) + "\n"
      : explanationText(why, whereOf(target.context)),
  );
  return 0;
}

/** The explanation as lines a person reads, dig's comment style first. */
export function explanationText(e: Explanation, where: string): string {
  const lines = [
    `;; What ${where} would answer ${e.client} (asked of its API: nothing was sent, counted or logged)`,
    `;; QUESTION: ${e.name} ${e.type}`,
    `;; ANSWER: ${e.rcode}${e.answer === "" ? "" : `  ${e.answer}`}`,
    "",
    statusLine(e),
    `Client groups: ${listOf(e.groups)}`,
    `Policies: ${listOf(e.policies)}`,
  ];
  if (e.zone !== undefined) lines.push(`Zone: ${e.zone}`);
  if (e.route !== undefined) {
    lines.push(
      `Forwarded to: upstream group ${e.route.group} (${e.route.rule}${
        e.route.suffix === undefined ? "" : ` ${e.route.suffix}`
      })`,
    );
  }
  if (e.malformed !== undefined) lines.push(`Malformed: ${e.malformed}`);
  return lines.join("\n") + "\n";
}

function statusLine(e: Explanation): string {
  const matched = e.list === undefined
    ? ""
    : ` (list ${e.list}${e.rule === undefined ? "" : `, rule ${e.rule}`})`;
  return `Status: ${e.status}${matched}, from ${e.stage}`;
}

function listOf(items: readonly string[]): string {
  return items.length === 0 ? "(none)" : items.join(", ");
}
