/**
 * `kudurru admin reset-password | create-token | list-users`: local
 * administration without the HTTP API, for the server's user or root. With
 * a server running on the data directory it asks that server through the
 * control socket (mode 0600: nobody else may connect); with none it works
 * on the data directory's state.db itself, so an admin locked out of the
 * API can get back in while the server is stopped.
 *
 * A new password is never taken from the command line, where shell history
 * and `ps` would keep it: it comes from --password-file, or from standard
 * input when that is not a terminal, else it is generated. A generated
 * password or a new token is the only thing written to standard output
 * (so `$(kudurru admin create-token …)` captures just the token); what
 * happened goes to standard error.
 */
import { join } from "node:path";
import type { TokenScope } from "../api/v1alpha1/auth_kinds.ts";
import { newToken } from "../auth/api_token.ts";
import { closestMatch } from "../config/closest_match.ts";
import { parseDuration } from "../config/duration.ts";
import { validateTokenScopes } from "../rbac/validate.ts";
import {
  type AdminToken,
  type AdminTokenRequest,
  createAdminToken,
  listUsers,
  type PasswordReset,
  resetPassword,
} from "../server/admin_actions.ts";
import { type UserSummary } from "../auth/accounts.ts";
import { ServerNotRunningError } from "../server/control_socket.ts";
import {
  requestAdminToken,
  requestPasswordReset,
  requestUserList,
} from "../server/control_socket_admin.ts";
import { isDirectory } from "../server/data_dir.ts";
import type { Store } from "../store/store.ts";
import {
  type Command,
  type CommandIO,
  parseFlags,
  UsageError,
} from "./command.ts";
import {
  loadLocalConfig,
  missingDataDirMessage,
  openLocalStore,
  resolveDataDir,
  STORE_FLAGS,
  type StoreFlagValues,
} from "./local_store.ts";

const SUBCOMMANDS = ["reset-password", "create-token", "list-users"] as const;
type Subcommand = typeof SUBCOMMANDS[number];

const RESET_FLAGS = {
  ...STORE_FLAGS,
  "password-file": { type: "string" },
  "remove-totp": { type: "boolean" },
} as const;

const TOKEN_FLAGS = {
  ...STORE_FLAGS,
  user: { type: "string" },
  "service-account": { type: "string" },
  name: { type: "string" },
  scope: { type: "string", multiple: true },
  expires: { type: "string" },
  "print-only": { type: "boolean" },
} as const;

const LIST_FLAGS = {
  ...STORE_FLAGS,
  output: { type: "string", short: "o" },
} as const;

/** What the commands need from the process beyond CommandIO. */
export interface AdminDeps {
  /** Whether standard input is a terminal. @default Deno.stdin.isTerminal */
  stdinIsTerminal?: () => boolean;
}

/** `admin`; tests say whether standard input is a terminal. */
export function makeAdminCommand(deps: AdminDeps = {}): Command {
  const stdinIsTerminal = deps.stdinIsTerminal ??
    (() => Deno.stdin.isTerminal());
  return {
    name: "admin",
    summary: "Reset a password, make an API token or list users, locally",
    usage: ADMIN_USAGE,
    async run(args, io) {
      const [word, ...rest] = args;
      const sub = whichSubcommand(word);
      switch (sub) {
        case "reset-password":
          return await runResetPassword(rest, io, stdinIsTerminal);
        case "create-token":
          return await runCreateToken(rest, io);
        case "list-users":
          return await runListUsers(rest, io);
      }
    },
  };
}

const FLAGS_USAGE = "[--data-dir DIR] [--config FILE]";

const ADMIN_USAGE =
  `  kudurru admin reset-password USER [--password-file FILE] [--remove-totp]
      ${FLAGS_USAGE}
      Set USER's password: the one line of FILE, else of standard input
      when that is not a terminal, else a generated one, printed once. USER
      must change it at the next login; USER's sessions end. (Where standard
      input is not a terminal but nothing is piped in, add </dev/null.)
      --remove-totp: also remove USER's TOTP (a lost authenticator), so the
      next login needs no code; USER may set it up again afterwards.
  kudurru admin create-token (--user USER | --service-account NAME) --name TEXT
      [--scope ROLE[@ZONE] ...] [--expires DURATION] ${FLAGS_USAGE}
      Make an API token and print it once. --scope narrows it below its
      owner's rights (viewer, operator, admin, auditor, zone-admin; @ZONE: on
      that DNSZone only). --expires: 30d, 12h, 90m …; by default
      auth.tokens.maxLifetime, or never when that is 0.
  kudurru admin create-token --print-only
      Print a new token text and store nothing (for KUDURRU_BOOTSTRAP_TOKEN).
  kudurru admin list-users [-o table|json] ${FLAGS_USAGE}
      The users: display name, disabled, must change password, TOTP.
  Run as the server's user or root. With a server running on the data
  directory, it does the work; otherwise state.db is changed directly. A
  password or token goes to standard output alone; notes go to standard error.`;

function whichSubcommand(word: string | undefined): Subcommand {
  if (word === undefined || word.startsWith("-")) {
    throw new UsageError(
      "kudurru admin: name a subcommand first: reset-password, create-token or list-users",
    );
  }
  const found = SUBCOMMANDS.find((s) => s === word);
  if (found) return found;
  const hint = closestMatch(word, SUBCOMMANDS);
  throw new UsageError(
    `kudurru admin: unknown subcommand "${word}"${
      hint ? ` (did you mean "${hint}"?)` : ""
    }; use reset-password, create-token or list-users`,
  );
}

/** Where the work was done, for the messages. */
type Where = { server: true } | { server: false; dataDir: string };

/**
 * Runs `viaServer` when a server runs on the data directory, else `local`
 * on its state.db. Refusals and failures are reported, never thrown.
 */
async function onServerOrStore<T>(
  command: string,
  values: StoreFlagValues,
  io: CommandIO,
  viaServer: (dataDir: string) => Promise<T>,
  local: (dataDir: string) => Promise<T>,
): Promise<{ answer: T; where: Where } | undefined> {
  const fail = (err: unknown) => {
    io.stderr(
      `kudurru admin ${command}: ${
        err instanceof Error ? err.message : String(err)
      }\n`,
    );
    return undefined;
  };
  let dataDir: string;
  try {
    dataDir = resolveDataDir(values);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    return fail(err);
  }
  // A mistyped --data-dir must not be created, nor read as "no users".
  if (!(await isDirectory(dataDir))) {
    return fail(missingDataDirMessage(dataDir));
  }
  try {
    return { answer: await viaServer(dataDir), where: { server: true } };
  } catch (err) {
    if (!(err instanceof ServerNotRunningError)) return fail(err);
  }
  try {
    return { answer: await local(dataDir), where: { server: false, dataDir } };
  } catch (err) {
    return fail(err);
  }
}

/**
 * Runs `fn` on the data directory's state.db. A command that writes needs
 * one that exists: without it no server ever started there, so there are
 * no users to change (and an empty database must not be left behind).
 */
async function withLocalStore<T>(
  values: StoreFlagValues,
  dataDir: string,
  writes: boolean,
  fn: (store: Store) => Promise<T>,
): Promise<T> {
  const path = join(dataDir, "state.db");
  if (writes && !(await isFile(path))) {
    throw new Error(
      `no server has started on ${dataDir} yet (there is no ${path}), so there are no users: start kudurru serve once, and it makes the first admin`,
    );
  }
  const store = await openLocalStore(
    { ...values, "data-dir": dataDir },
    writes ? { existing: true } : { readOnly: true },
  );
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

function whereText(where: Where): string {
  return where.server
    ? "through the running server"
    : `in ${join(where.dataDir, "state.db")} (no server is running)`;
}

async function runResetPassword(
  args: string[],
  io: CommandIO,
  stdinIsTerminal: () => boolean,
): Promise<number> {
  const { values, positionals } = parseFlags(
    "admin reset-password",
    args,
    RESET_FLAGS,
    1,
  );
  const [user] = positionals;
  if (user === undefined || user === "") {
    throw new UsageError(
      "kudurru admin reset-password: name the USER (`kudurru admin list-users` lists them)",
    );
  }
  let password: string | undefined;
  try {
    password = await newPassword(values["password-file"], io, stdinIsTerminal);
  } catch (err) {
    io.stderr(
      `kudurru admin reset-password: ${
        err instanceof Error ? err.message : String(err)
      }\n`,
    );
    return 1;
  }
  const removeTotp = values["remove-totp"] === true;
  const done = await onServerOrStore<PasswordReset>(
    "reset-password",
    values,
    io,
    (dataDir) => requestPasswordReset(dataDir, user, password, { removeTotp }),
    (dataDir) =>
      withLocalStore(
        values,
        dataDir,
        true,
        (store) => resetPassword(store, user, password, { removeTotp }),
      ),
  );
  if (done === undefined) return 1;
  const { answer, where } = done;
  io.stderr(
    `Reset the password of "${answer.user}" ${
      whereText(where)
    }; it must be changed at the next login, and earlier sessions have ended.\n`,
  );
  if (answer.disabled) {
    io.stderr(
      `Note: "${answer.user}" is disabled; the password works once the user is enabled again.\n`,
    );
  }
  if (answer.totpRemoved === true) {
    io.stderr(
      `Removed the TOTP of "${answer.user}": the next login needs no code, and the user may set it up again.\n`,
    );
  } else if (answer.totpRemoved === false) {
    io.stderr(`Note: "${answer.user}" had no TOTP on to remove.\n`);
  }
  if (answer.totp) {
    io.stderr(
      `Note: "${answer.user}" has TOTP on; logging in still needs a code from the authenticator.\n`,
    );
  }
  if (answer.generatedPassword !== undefined) {
    io.stderr("The new password, shown this once:\n");
    io.stdout(`${answer.generatedPassword}\n`);
  }
  return 0;
}

/**
 * The password given (--password-file, or standard input that is not a
 * terminal), or undefined for "generate one": nothing given, or an empty
 * standard input such as </dev/null. One line, its line end dropped.
 */
async function newPassword(
  file: string | undefined,
  io: CommandIO,
  stdinIsTerminal: () => boolean,
): Promise<string | undefined> {
  if (file !== undefined) {
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new Error(`cannot read the password file ${file}: ${why}`);
    }
    const password = oneLine(text, `the password file ${file}`);
    if (password === "") throw new Error(`the password file ${file} is empty`);
    return password;
  }
  if (stdinIsTerminal()) return undefined;
  const password = oneLine(await io.readStdin(), "standard input");
  return password === "" ? undefined : password;
}

/** `text` without its final line end; more than one line is refused. */
function oneLine(text: string, what: string): string {
  const line = text.replace(/\r?\n$/, "");
  if (/[\r\n]/.test(line)) {
    throw new Error(
      `${what} holds more than one line; put the password alone on the first line`,
    );
  }
  return line;
}

async function runCreateToken(
  args: string[],
  io: CommandIO,
): Promise<number> {
  const { values } = parseFlags("admin create-token", args, TOKEN_FLAGS, 0);
  if (values["print-only"] === true) {
    const others = Object.keys(values).filter((k) => k !== "print-only");
    if (others.length > 0) {
      throw new UsageError(
        `kudurru admin create-token: --print-only stores nothing and takes no other flag (--${
          others[0]
        })`,
      );
    }
    io.stderr(
      "A new token text, stored nowhere: give it to KUDURRU_BOOTSTRAP_TOKEN; it is shown this once.\n",
    );
    io.stdout(`${newToken().text}\n`);
    return 0;
  }
  const request = tokenRequestOf(values);
  const done = await onServerOrStore<AdminToken>(
    "create-token",
    values,
    io,
    (dataDir) => requestAdminToken(dataDir, request),
    (dataDir) =>
      withLocalStore(
        values,
        dataDir,
        true,
        (store) =>
          createAdminToken(store, request, {
            maxTokenLifetimeMs: maxTokenLifetime(values),
          }),
      ),
  );
  if (done === undefined) return 1;
  const { answer, where } = done;
  const scopes = answer.scopes.length === 0
    ? "the owner's full rights"
    : answer.scopes.map(scopeText).join(", ");
  io.stderr(
    `Made API token ${answer.id} for ${answer.owner.kind} "${answer.owner.name}" ("${answer.name}") ${
      whereText(where)
    }: ${scopes}, ${
      answer.expiresAt === undefined
        ? "never expires"
        : `expires ${answer.expiresAt}`
    }.\nThe token, shown this once (kudurru keeps only its hash):\n`,
  );
  io.stdout(`${answer.token}\n`);
  return 0;
}

/** The request the flags describe, or a UsageError. */
function tokenRequestOf(
  values: {
    user?: string | undefined;
    "service-account"?: string | undefined;
    name?: string | undefined;
    scope?: string[] | undefined;
    expires?: string | undefined;
  },
): AdminTokenRequest {
  const user = values.user;
  const serviceAccount = values["service-account"];
  if ((user === undefined) === (serviceAccount === undefined)) {
    throw new UsageError(
      "kudurru admin create-token: give either --user USER or --service-account NAME (the token's owner)",
    );
  }
  if (values.name === undefined || values.name.trim() === "") {
    throw new UsageError(
      'kudurru admin create-token: --name TEXT says what the token is for (such as --name "ci deploy")',
    );
  }
  const scopes = (values.scope ?? []).map(parseScope);
  return {
    ...(user !== undefined && { user }),
    ...(serviceAccount !== undefined && { serviceAccount }),
    name: values.name,
    ...(scopes.length > 0 && { scopes }),
    ...(values.expires !== undefined &&
      { expiresInSeconds: parseExpiry(values.expires) }),
  };
}

/** `ROLE` (everywhere) or `ROLE@ZONE` (on that DNSZone only). */
export function parseScope(text: string): TokenScope {
  const at = text.indexOf("@");
  const scope: TokenScope = at < 0 ? { role: text } : {
    role: text.slice(0, at),
    scope: { kind: "zone", name: text.slice(at + 1) },
  };
  const issues = validateTokenScopes([scope]);
  if (issues.length > 0) {
    throw new UsageError(
      `kudurru admin create-token: --scope ${text}: ${issues[0]!.message}`,
    );
  }
  return scope;
}

function scopeText(scope: TokenScope): string {
  return scope.scope?.kind === "zone"
    ? `${scope.role} on zone ${scope.scope.name}`
    : scope.role;
}

/** Seconds of an --expires value, or a UsageError. */
export function parseExpiry(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms < 1000 || ms % 1000 !== 0) {
    throw new UsageError(
      `kudurru admin create-token: --expires ${text} is not a lifetime such as 30d, 12h or 90m (whole seconds, at least 1s)`,
    );
  }
  return ms / 1000;
}

/**
 * auth.tokens.maxLifetime as this machine's configuration says: with no
 * server running, the limit is still the one the server would apply.
 */
function maxTokenLifetime(values: StoreFlagValues): number {
  try {
    return loadLocalConfig(values).auth.tokens.maxLifetime;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(
      `cannot read auth.tokens.maxLifetime, the longest a token may live: ${why}`,
      { cause: err },
    );
  }
}

async function runListUsers(args: string[], io: CommandIO): Promise<number> {
  const { values } = parseFlags("admin list-users", args, LIST_FLAGS, 0);
  const format = values.output ?? "table";
  if (format !== "table" && format !== "json") {
    throw new UsageError(
      `kudurru admin list-users: -o must be table or json, not "${format}"`,
    );
  }
  const done = await onServerOrStore<UserSummary[]>(
    "list-users",
    values,
    io,
    (dataDir) => requestUserList(dataDir),
    (dataDir) => withLocalStore(values, dataDir, false, listUsers),
  );
  if (done === undefined) return 1;
  const users = done.answer;
  if (format === "json") {
    io.stdout(`${JSON.stringify({ items: users }, null, 2)}\n`);
    return 0;
  }
  io.stdout(usersTable(users));
  return 0;
}

/** The users as a kubectl-like table. */
export function usersTable(users: readonly UserSummary[]): string {
  if (users.length === 0) {
    return "No users (kudurru serve makes the first admin when it first starts).\n";
  }
  const yesNo = (b: boolean) => (b ? "yes" : "no");
  const header = [
    "NAME",
    "DISPLAY NAME",
    "DISABLED",
    "MUST CHANGE PASSWORD",
    "TOTP",
    "CREATED",
  ];
  const rows = users.map((u) => [
    u.name,
    u.displayName,
    yesNo(u.disabled),
    yesNo(u.mustChangePassword),
    yesNo(u.totp),
    u.createdAt ?? "",
  ]);
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.map((r) => r[i]!.length))
  );
  const line = (cells: string[]) =>
    cells.map((c, i) => c.padEnd(widths[i]!)).join("   ").trimEnd();
  return [line(header), ...rows.map(line)].join("\n") + "\n";
}

export const adminCommand: Command = makeAdminCommand();
