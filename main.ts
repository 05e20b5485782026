/**
 * kudurru: one program that is a complete DNS server. This file only parses
 * the command line and hands it to src/cli/.
 */
import { runCli } from "./src/cli/run.ts";
import { processIO } from "./src/cli/command.ts";

if (import.meta.main) {
  Deno.exit(await runCli(Deno.args, processIO));
}
