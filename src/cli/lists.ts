/**
 * `kudurru lists refresh NAME [-n NAMESPACE]`: fetch a BlockList's URL
 * sources now rather than at its next refreshInterval, and say how each
 * went. It needs a server: the fetch happens in the running server's list
 * fetcher (on the node that fetches lists), which only the API reaches;
 * without a context it says how to log in.
 */
import {
  type Command,
  type CommandIO,
  parseFlags,
  UsageError,
} from "./command.ts";
import type { ListRefreshSource } from "../apiserver/routes/operations_routes.ts";
import { closestMatch } from "../config/closest_match.ts";
import { formatLogTime } from "./log_time.ts";
import { resolveTarget, TARGET_FLAGS } from "./target.ts";
import { ApiObjects } from "./api_objects.ts";

const SUBCOMMANDS = ["refresh"];

/** What the refresh route answers. */
interface RefreshOutcome {
  namespace: string;
  name: string;
  state: "fetched" | "pending" | "nothing";
  sources: ListRefreshSource[];
}

export const listsCommand: Command = {
  name: "lists",
  summary: "Fetch a block list's sources now, on a server",
  usage: "  kudurru lists refresh NAME [-n NAMESPACE] [--context NAME]\n" +
    "  Downloads every enabled URL source of the BlockList NAME (namespace default unless -n says) now,\n" +
    "  not at its next refreshInterval, and prints how each went; when the downloads take longer than a\n" +
    "  few seconds it says so, and kudurru describe blocklist NAME shows the outcome later. Works on the\n" +
    "  server of --context or the current context (kudurru login).",
  async run(args, io) {
    const { values, positionals } = parseFlags("lists", args, {
      ...TARGET_FLAGS,
      namespace: { type: "string", short: "n" },
    }, 2);
    const [sub, name] = positionals;
    if (sub !== "refresh") {
      const hint = sub ? closestMatch(sub, SUBCOMMANDS) : undefined;
      throw new UsageError(
        sub
          ? `kudurru lists: unknown subcommand "${sub}"${
            hint ? `; did you mean "${hint}"?` : ""
          }`
          : "kudurru lists: name a subcommand: refresh",
      );
    }
    if (!name) {
      throw new UsageError(
        "kudurru lists refresh: name the BlockList, such as: kudurru lists refresh ads",
      );
    }
    const target = await resolveTarget("lists", values, io);
    if (target.kind === "local") {
      throw new Error(
        "lists are fetched by a running server, which only its API can ask: run kudurru login --server URL first (or pass --context NAME)",
      );
    }
    const namespace = values.namespace ?? "default";
    using api = await ApiObjects.open(target.context);
    const outcome = await api.call(
      "POST",
      `/api/v1/namespaces/${encodeURIComponent(namespace)}/blocklists/${
        encodeURIComponent(name)
      }:refresh`,
    ) as RefreshOutcome;
    return printOutcome(outcome, io);
  },
};

/** The outcome, one line per source; exit 1 when a source failed. */
function printOutcome(outcome: RefreshOutcome, io: CommandIO): number {
  const list = `BlockList ${outcome.namespace}/${outcome.name}`;
  if (outcome.state === "nothing") {
    io.stdout(`${list} has no enabled URL source to fetch.\n`);
    return 0;
  }
  if (outcome.state === "pending") {
    io.stdout(
      `${list}: still downloading; kudurru describe blocklist ${outcome.name} -n ${outcome.namespace} shows the outcome when it is done.\n`,
    );
    return 0;
  }
  io.stdout(`${list}: fetched its sources now.\n`);
  let failed = 0;
  for (const source of outcome.sources) {
    if (source.ok) {
      const when = source.fetchedAt === undefined
        ? ""
        : `, as of ${formatLogTime(Date.parse(source.fetchedAt))}`;
      io.stdout(
        `  ok      ${source.url} (${
          source.changed ? "changed" : "unchanged"
        }${when})\n`,
      );
    } else {
      failed++;
      io.stdout(
        `  failed  ${source.url}: ${
          source.error ?? "no reason given"
        } (the copy held before, if any, stays in use)\n`,
      );
    }
  }
  return failed === 0 ? 0 : 1;
}
