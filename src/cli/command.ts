/**
 * The shape every subcommand file exports, and the usage error they throw.
 * main.ts dispatches to these; one file per command in this folder.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

export interface Command {
  /** The word after `kudurru`. */
  name: string;
  /** One line for `kudurru help`. */
  summary: string;
  /** The full usage text for `kudurru help <name>`. */
  usage: string;
  /** Runs the command; resolves to the process exit code. */
  run(args: string[], io: CommandIO): Promise<number>;
  /**
   * The exit code of a usage error. @default 2 (a container health check
   * must not use 2, which Docker reserves)
   */
  usageExitCode?: number;
}

/** Where a command reads and writes; tests substitute buffers. */
export interface CommandIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Standard input as text (for `apply -f -`). */
  readStdin: () => Promise<string>;
  env: (name: string) => string | undefined;
}

/** Bad command-line usage: main prints the message and exits with code 2 (Command.usageExitCode). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * Parses flags strictly: an unknown flag or a missing value becomes a
 * UsageError that names the command.
 */
export function parseFlags<O extends Options>(
  command: string,
  args: string[],
  options: O,
  maxPositionals = Infinity,
) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new UsageError(
      `kudurru ${command}: ${flagProblem(msg, args, options)}`,
    );
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(
      `kudurru ${command}: unexpected argument "${
        parsed.positionals[maxPositionals]
      }"`,
    );
  }
  return parsed;
}

/**
 * node:util's parse error in kudurru's words: "-f needs a value" rather
 * than "argument is ambiguous", without its hints about "--" and
 * "--opt=-XYZ", which read like noise.
 */
export function flagProblem(
  message: string,
  args: readonly string[],
  options: Options,
): string {
  // "Option '-f, --filename <value>' argument missing"
  const missing =
    /^Option '(?:-(\w), )?(--[\w-]+)(?: <value>)?' argument missing/
      .exec(message);
  if (missing) {
    const [, short, long] = missing;
    return `${short ? `-${short} (${long})` : long} needs a value`;
  }
  // "Option '-f' argument is ambiguous. Did you forget …": a flag followed
  // by what looks like another flag, as in `apply -f --data-dir d`.
  const ambiguous = /^Option '(-{1,2})([\w-]+)' argument is ambiguous/.exec(
    message,
  );
  if (ambiguous) {
    const [, dashes, name] = ambiguous;
    const flag = `${dashes}${name}`;
    const long = dashes === "--"
      ? name
      : Object.entries(options).find(([, o]) => o.short === name)?.[0];
    const next = args[args.indexOf(flag) + 1];
    return `${flag} needs a value${
      next === undefined ? "" : `, but "${next}" follows it`
    }${
      long ? ` (for a value that starts with "-", write --${long}=VALUE)` : ""
    }`;
  }
  return message.replace(
    /\s*To specify an? (option|positional) argument.*$/s,
    "",
  );
}

const encoder = new TextEncoder();

/**
 * Writes all of `bytes`. One writeSync may write only part: on a full disk
 * (`kudurru export > file`) it writes what fits and returns the count, and
 * only the next write fails, so the command fails instead of exiting 0.
 */
export function writeAllSync(
  out: { writeSync(p: Uint8Array): number },
  bytes: Uint8Array,
): void {
  for (let done = 0; done < bytes.length;) {
    done += out.writeSync(bytes.subarray(done));
  }
}

/** The real process streams. */
export const processIO: CommandIO = {
  stdout: (text) => writeAllSync(Deno.stdout, encoder.encode(text)),
  stderr: (text) => writeAllSync(Deno.stderr, encoder.encode(text)),
  readStdin: async () => await new Response(Deno.stdin.readable).text(),
  env: (name) => Deno.env.get(name),
};

/** Collects output in memory: for command tests. */
export function bufferIO(stdin = "", env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CommandIO = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    readStdin: () => Promise.resolve(stdin),
    env: (name) => env[name],
  };
  return {
    io,
    stdout: () => out.join(""),
    stderr: () => err.join(""),
  };
}
