/**
 * `kudurru context list|use NAME|delete NAME`: the servers `kudurru login`
 * connected to, which one commands use, and forgetting one. The list shows
 * names and servers only: a token is never printed.
 */
import { parseToken } from "../auth/api_token.ts";
import { type Command, parseFlags, UsageError } from "./command.ts";
import {
  contextsPath,
  pickContext,
  readContexts,
  writeContexts,
} from "./contexts.ts";

const SUBCOMMANDS = "list, use, delete";

export const contextCommand: Command = {
  name: "context",
  summary: "List, choose or forget the servers kudurru login connected to",
  usage: "  kudurru context list\n" +
    "  kudurru context use NAME\n" +
    "  kudurru context delete NAME\n" +
    "  list marks the current context with *; use makes NAME current; delete forgets NAME and its token\n" +
    "  here (the token stays valid on the server until it is revoked there).",
  async run(args, io) {
    const { positionals } = parseFlags("context", args, {}, 2);
    const [sub, name] = positionals;
    if (sub === undefined) {
      throw new UsageError(
        `kudurru context: name a subcommand: ${SUBCOMMANDS}`,
      );
    }
    if (sub !== "list" && sub !== "use" && sub !== "delete") {
      throw new UsageError(
        `kudurru context: unknown subcommand "${sub}"; the ones there are: ${SUBCOMMANDS}`,
      );
    }
    if (sub === "list" && name !== undefined) {
      throw new UsageError(
        `kudurru context list: unexpected argument "${name}"`,
      );
    }
    if (sub !== "list" && name === undefined) {
      throw new UsageError(`kudurru context ${sub}: name the context`);
    }
    const path = contextsPath(io.env);
    const file = await readContexts(path);
    if (sub === "list") {
      if (file.contexts.length === 0) {
        io.stderr(
          "No contexts: connect to a server with kudurru login --server URL --username USER\n",
        );
        return 0;
      }
      io.stdout(table(file.contexts.map((c) => [
        c.name === file.current ? "*" : "",
        c.name,
        c.server,
      ])));
      return 0;
    }
    const context = pickContext(file, name);
    if (sub === "use") {
      await writeContexts(path, { ...file, current: context.name });
      io.stdout(`Context "${context.name}" (${context.server}) is current.\n`);
      return 0;
    }
    const { current, ...rest } = file;
    await writeContexts(path, {
      ...rest,
      ...(current !== undefined && current !== context.name && { current }),
      contexts: file.contexts.filter((c) => c.name !== context.name),
    });
    io.stdout(
      `Deleted context "${context.name}"${
        current === context.name ? "; there is no current context now" : ""
      }. Its token stays valid on ${context.server} until it is revoked there (the web UI's access page, or DELETE /api/v1/tokens/${
        tokenId(context.token) ?? "ID"
      }).\n`,
    );
    return 0;
  },
};

/** The public id in `kdr_<id>_<secret>`, which names the token in the API. */
function tokenId(token: string): string | undefined {
  return parseToken(token)?.id;
}

function table(rows: string[][]): string {
  const all = [["CURRENT", "NAME", "SERVER"], ...rows];
  const widths = all[0]!.map((_, i) =>
    Math.max(...all.map((r) => r[i]!.length))
  );
  return all.map((r) =>
    r.map((cell, i) => i === r.length - 1 ? cell : cell.padEnd(widths[i]!))
      .join("  ")
  ).join("\n") + "\n";
}
