/** `kudurru version`. */
import { type Command, parseFlags } from "./command.ts";
import { VERSION } from "../version.ts";

export const versionCommand: Command = {
  name: "version",
  summary: "Print the kudurru version",
  usage: "  kudurru version",
  run(args, io) {
    parseFlags("version", args, {}, 0);
    io.stdout(
      `kudurru ${VERSION} (deno ${Deno.version.deno}, ${Deno.build.target})\n`,
    );
    return Promise.resolve(0);
  },
};
