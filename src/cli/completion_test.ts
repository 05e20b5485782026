import assert from "node:assert/strict";
import { bufferIO, UsageError } from "./command.ts";
import { COMMANDS } from "./run.ts";
import { commandFlags } from "./completion.ts";

const completion = COMMANDS.find((c) => c.name === "completion")!;

async function scriptFor(shell: string): Promise<string> {
  const out = bufferIO();
  assert.equal(await completion.run([shell], out.io), 0);
  return out.stdout();
}

Deno.test("kudurru completion bash completes every command and its flags, and bash reads it", async () => {
  const script = await scriptFor("bash");
  for (const command of COMMANDS) {
    assert.ok(script.includes(command.name), command.name);
  }
  assert.match(script, /import\) opts="[^"]*--settings-out/);
  assert.match(script, /^complete -F _kudurru kudurru$/m);
  // bash parses it and completes a command name with it.
  const out = await new Deno.Command("bash", {
    args: [
      "-c",
      `${script}\nCOMP_WORDS=(kudurru imp); COMP_CWORD=1; _kudurru; echo "\${COMPREPLY[@]}"`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  assert.equal(new TextDecoder().decode(out.stdout).trim(), "import");
});

Deno.test("kudurru completion zsh and fish name every command; flags come from the usage text", async () => {
  const zsh = await scriptFor("zsh");
  assert.match(zsh, /^#compdef kudurru$/m);
  const fish = await scriptFor("fish");
  assert.match(fish, /-a import -d /);
  assert.match(fish, /__fish_seen_subcommand_from import" -l settings-out/);
  const serve = COMMANDS.find((c) => c.name === "serve")!;
  assert.ok(commandFlags(serve).includes("--config"));
  await assert.rejects(
    () => completion.run(["tcsh"], bufferIO().io),
    UsageError,
  );
});
