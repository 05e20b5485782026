/** `kudurru help [command]`: the command list, or one command's usage. */
import { type Command, UsageError } from "./command.ts";
import { closestMatch } from "../config/closest_match.ts";

export function makeHelpCommand(commands: () => Command[]): Command {
  return {
    name: "help",
    summary: "Show the commands, or how to use one of them",
    usage: "  kudurru help [COMMAND]",
    run(args, io) {
      if (args.length > 1) {
        throw new UsageError("kudurru help: takes at most one command name");
      }
      const list = commands();
      const [name] = args;
      if (name === undefined) {
        const width = Math.max(...list.map((c) => c.name.length));
        io.stdout(
          "kudurru: a complete DNS server (authoritative, forwarding, blocking)\n\n" +
            "Usage: kudurru <command> [flags]\n\nCommands:\n" +
            list.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join(
              "\n",
            ) +
            '\n\nRun "kudurru help <command>" for a command\'s flags.\n',
        );
        return Promise.resolve(0);
      }
      const command = list.find((c) => c.name === name);
      if (!command) {
        const hint = closestMatch(name, list.map((c) => c.name));
        throw new UsageError(
          `kudurru help: unknown command "${name}"${
            hint ? ` (did you mean "${hint}"?)` : ""
          }`,
        );
      }
      io.stdout(`${command.summary}\n\nUsage:\n${command.usage}\n`);
      return Promise.resolve(0);
    },
  };
}
