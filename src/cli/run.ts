/**
 * Dispatches `kudurru <command> …` to the command files in this folder.
 * Usage errors print a message and exit 2 (1 for `health`, see Command);
 * failures inside a command exit 1.
 */
import { type Command, type CommandIO, UsageError } from "./command.ts";
import { makeHelpCommand } from "./help.ts";
import { closestMatch } from "../config/closest_match.ts";
import { versionCommand } from "./version.ts";
import { serveCommand } from "./serve.ts";
import { configCommand } from "./config.ts";
import { getCommand } from "./get.ts";
import { zonefileCommand } from "./zonefile.ts";
import { applyCommand } from "./apply.ts";
import { deleteCommand } from "./delete.ts";
import { exportCommand } from "./export.ts";
import { restoreCommand } from "./restore.ts";
import { cacheCommand } from "./cache.ts";
import { blockingCommand } from "./blocking.ts";
import { healthCommand } from "./health.ts";
import { querylogCommand } from "./querylog.ts";
import { statsCommand } from "./stats.ts";
import { adminCommand } from "./admin.ts";
import { tsigCommand } from "./tsig.ts";
import { edgeCommand } from "./edge.ts";
import { importCommand } from "./import.ts";
import { makeCompletionCommand } from "./completion.ts";
import { loginCommand } from "./login.ts";
import { contextCommand } from "./context.ts";
import { apiCommand } from "./api.ts";
import { queryCommand } from "./query.ts";
import { describeCommand } from "./describe.ts";
import { zonesCommand } from "./zones.ts";
import { recordsCommand } from "./records.ts";
import { listsCommand } from "./lists.ts";
import { doctorCommand } from "./doctor.ts";
import { backupCommand } from "./backup.ts";

export const COMMANDS: Command[] = [
  serveCommand,
  versionCommand,
  makeHelpCommand(() => COMMANDS),
  configCommand,
  getCommand,
  zonefileCommand,
  applyCommand,
  deleteCommand,
  exportCommand,
  backupCommand,
  restoreCommand,
  cacheCommand,
  blockingCommand,
  listsCommand,
  healthCommand,
  querylogCommand,
  statsCommand,
  adminCommand,
  tsigCommand,
  edgeCommand,
  importCommand,
  loginCommand,
  contextCommand,
  apiCommand,
  queryCommand,
  describeCommand,
  zonesCommand,
  recordsCommand,
  doctorCommand,
  makeCompletionCommand(() => COMMANDS),
];

export async function runCli(args: string[], io: CommandIO): Promise<number> {
  const [name, ...rest] = args;
  const help = COMMANDS.find((c) => c.name === "help")!;
  if (name === undefined || name === "--help" || name === "-h") {
    await help.run([], io);
    return name === undefined ? 2 : 0;
  }
  if (name === "--version") return await versionCommand.run([], io);
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    const hint = closestMatch(name, COMMANDS.map((c) => c.name));
    io.stderr(
      `kudurru: unknown command "${name}"${
        hint ? ` (did you mean "${hint}"?)` : ""
      }; run "kudurru help" for the list\n`,
    );
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    return await help.run([command.name], io);
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`${err.message}\nUsage:\n${command.usage}\n`);
      return command.usageExitCode ?? 2;
    }
    io.stderr(
      `kudurru ${command.name}: ${
        err instanceof Error ? err.message : String(err)
      }\n`,
    );
    return 1;
  }
}
