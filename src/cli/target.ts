/**
 * Where a command that works locally or on a server (get, apply, delete,
 * describe, zones, export, restore, blocking, cache, querylog, stats)
 * works: on a server's API or on this machine's data directory. Once a
 * user has run `kudurru login`, the server is what they mean, and going
 * through its API keeps their roles in force; --data-dir or --config say
 * "this machine", and --context names a server outright. Nothing is
 * printed on the local path, so scripts that used --data-dir see what
 * they always saw.
 */
import { type CommandIO, UsageError } from "./command.ts";
import {
  type CliContext,
  contextsPath,
  pickContext,
  readContexts,
} from "./contexts.ts";
import { freshContext } from "./oidc_session.ts";
import { STORE_FLAGS, type StoreFlagValues } from "./local_store.ts";

/** The flags of a command that works locally or over the API. */
export const TARGET_FLAGS = {
  ...STORE_FLAGS,
  context: { type: "string" },
} as const;

export interface TargetFlagValues extends StoreFlagValues {
  context?: string | undefined;
}

/** Where a command works. */
export type Target =
  | { kind: "local"; store: StoreFlagValues }
  | { kind: "api"; context: CliContext };

/**
 * The target the flags and the contexts file choose: --context is the API,
 * --data-dir or --config this machine, and without any of them the current
 * context when there is one, else this machine.
 *
 * @throws {UsageError} when --context comes with --data-dir or --config
 * @throws {Error} when --context names no context, or the contexts file
 *   (which a current context would be read from) is broken
 */
export async function resolveTarget(
  command: string,
  values: TargetFlagValues,
  io: CommandIO,
): Promise<Target> {
  const store: StoreFlagValues = {
    "data-dir": values["data-dir"],
    config: values.config,
  };
  const local = values["data-dir"] !== undefined ||
    values.config !== undefined;
  if (values.context !== undefined) {
    if (local) {
      throw new UsageError(
        `kudurru ${command}: --context works on a server's API, --data-dir and --config on this machine; give one of them`,
      );
    }
    const path = contextsPath(io.env);
    const file = await readContexts(path);
    return {
      kind: "api",
      context: await freshContext(pickContext(file, values.context), path),
    };
  }
  if (local) return { kind: "local", store };
  let path: string;
  try {
    path = contextsPath(io.env);
  } catch {
    // No HOME and no XDG_CONFIG_HOME (a service's environment): nobody
    // logged in from here, so this machine is meant.
    return { kind: "local", store };
  }
  // A broken file is an error rather than a quiet fall back to this
  // machine: the user may believe they are changing the server.
  const file = await readContexts(path);
  if (file.current === undefined) return { kind: "local", store };
  return { kind: "api", context: await freshContext(pickContext(file), path) };
}

/** How errors of the API path name where they came from. */
export function whereOf(context: CliContext): string {
  return `context "${context.name}" (${context.server})`;
}
