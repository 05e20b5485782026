/**
 * `kudurru completion bash|zsh|fish`: a shell completion script for the
 * commands and their flags, made from the commands' own usage texts (so it
 * never falls behind them). Install: `kudurru completion bash >
 * /etc/bash_completion.d/kudurru`, `kudurru completion zsh >
 * "${fpath[1]}/_kudurru"`, `kudurru completion fish >
 * ~/.config/fish/completions/kudurru.fish`.
 */
import { type Command, UsageError } from "./command.ts";

const SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = typeof SHELLS[number];

/** Each command's flags, as its usage text spells them ("--data-dir", "-o"). */
export function commandFlags(command: Command): string[] {
  const flags = new Set<string>();
  for (
    const m of command.usage.matchAll(
      /(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])\b/g,
    )
  ) {
    flags.add(m[1]!);
  }
  return [...flags].sort();
}

export function makeCompletionCommand(commands: () => Command[]): Command {
  return {
    name: "completion",
    summary: "Print a shell completion script (bash, zsh or fish)",
    usage: "  kudurru completion bash|zsh|fish\n" +
      "  bash: kudurru completion bash > /etc/bash_completion.d/kudurru\n" +
      '  zsh:  kudurru completion zsh > "${fpath[1]}/_kudurru"\n' +
      "  fish: kudurru completion fish > ~/.config/fish/completions/kudurru.fish",
    // deno-lint-ignore require-await -- a usage error must reject, not throw
    async run(args, io) {
      const [shell] = args;
      if (args.length !== 1 || !SHELLS.includes(shell as Shell)) {
        throw new UsageError(
          "kudurru completion: name the shell: bash, zsh or fish",
        );
      }
      io.stdout(script(shell as Shell, commands()));
      return 0;
    },
  };
}

function script(shell: Shell, commands: Command[]): string {
  const names = commands.map((c) => c.name);
  const flagsOf = commands.map((c) => [c.name, commandFlags(c)] as const);
  if (shell === "bash") {
    const cases = flagsOf.map(([name, flags]) =>
      `    ${name}) opts="${flags.join(" ")}" ;;`
    ).join("\n");
    return `# kudurru completion for bash
_kudurru() {
  local cur=\${COMP_WORDS[COMP_CWORD]} opts
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${names.join(" ")}" -- "$cur"))
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases}
    *) opts="" ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _kudurru kudurru
`;
  }
  if (shell === "zsh") {
    const cases = flagsOf.map(([name, flags]) =>
      `    ${name}) _arguments '*:file:_files' ${
        flags.map((f) => `'${f}[]'`).join(" ")
      } ;;`
    ).join("\n");
    const described = commands.map((c) =>
      `'${c.name}:${c.summary.replace(/'/g, "'\\''").replace(/:/g, "\\:")}'`
    ).join(" ");
    return `#compdef kudurru
_kudurru() {
  if (( CURRENT == 2 )); then
    local -a commands=(${described})
    _describe command commands
    return
  fi
  case $words[2] in
${cases}
  esac
}
_kudurru "$@"
`;
  }
  const lines = [
    "# kudurru completion for fish",
    "complete -c kudurru -f",
    ...commands.map((c) =>
      `complete -c kudurru -n __fish_use_subcommand -a ${c.name} -d ${
        fishQuote(c.summary)
      }`
    ),
    ...flagsOf.flatMap(([name, flags]) =>
      flags.map((f) =>
        f.startsWith("--")
          ? `complete -c kudurru -n "__fish_seen_subcommand_from ${name}" -l ${
            f.slice(2)
          }`
          : `complete -c kudurru -n "__fish_seen_subcommand_from ${name}" -s ${
            f.slice(1)
          }`
      )
    ),
  ];
  return lines.join("\n") + "\n";
}

function fishQuote(text: string): string {
  return `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}
