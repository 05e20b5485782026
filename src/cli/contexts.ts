/**
 * The CLI's contexts: which kudurru servers `kudurru login` connected to,
 * each with the API token (or an identity provider's ID token) it keeps
 * for it, and which one is current. They live in `$XDG_CONFIG_HOME/kudurru/contexts.yaml` (`~/.config/…` without
 * it). The file holds tokens, so it is written mode 0600 in a directory
 * made 0700, by rename (a crash leaves the old file or the new one), and a
 * broken file is reported with its path and what to do, never half-used.
 */
import { dirname, isAbsolute, join } from "node:path";
import YAML from "yaml";
import { replaceFile, writeAll } from "./replace_file.ts";

/** One server the CLI talks to. */
export interface CliContext {
  name: string;
  /** The API's base URL, such as https://dns.example.net:8080. */
  server: string;
  /**
   * An API token (`kdr_<id>_<secret>`), or the ID token of a login through
   * an identity provider; never printed.
   */
  token: string;
  /** A PEM file of the CA that signed the server's certificate. */
  caFile?: string;
  /** Set when `token` is an ID token: where to renew it (oidc_session.ts). */
  oidc?: OidcContext;
}

/** A login through an identity provider (`kudurru login --provider`). */
export interface OidcContext {
  provider: string;
  issuer: string;
  /** The public client the ID token was issued to. */
  clientID: string;
  /** Renews the ID token when it has expired; absent when the provider gave none. */
  refreshToken?: string;
}

/** The whole file. */
export interface ContextsFile {
  /** The context commands use without --context. */
  current?: string;
  contexts: CliContext[];
}

/** Only the owner may read a file of tokens. */
export const CONTEXTS_FILE_MODE = 0o600;

const HEADER =
  "# kudurru CLI contexts, written by `kudurru login`: it holds API tokens, keep it private (mode 0600).\n";

/** A context name that reads well in a table and on a command line. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._:@-]*$/;

/**
 * Where the contexts file is, from the environment: XDG_CONFIG_HOME when it
 * is an absolute path (the XDG spec ignores a relative one), else HOME.
 *
 * @throws {Error} when neither is set
 */
export function contextsPath(
  env: (name: string) => string | undefined,
): string {
  const xdg = env("XDG_CONFIG_HOME");
  if (xdg && isAbsolute(xdg)) return join(xdg, "kudurru", "contexts.yaml");
  const home = env("HOME");
  if (home) return join(home, ".config", "kudurru", "contexts.yaml");
  throw new Error(
    "cannot find the contexts file: set HOME (or XDG_CONFIG_HOME) to the directory it belongs in",
  );
}

/** Why `name` cannot name a context, or undefined when it can. */
export function contextNameProblem(name: string): string | undefined {
  return NAME.test(name)
    ? undefined
    : `a context's name is letters, digits and . _ : @ -, starting with a letter or digit, not "${name}"`;
}

/**
 * Reads the contexts file; one that does not exist yet has no contexts.
 *
 * @throws {Error} naming the file and the fault when it cannot be read or
 *   is not a contexts file
 */
export async function readContexts(path: string): Promise<ContextsFile> {
  let text;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { contexts: [] };
    throw new Error(`cannot read "${path}": ${messageOf(err)}`, {
      cause: err,
    });
  }
  return parseContexts(text, path);
}

/**
 * The contexts in `text`, checked.
 *
 * @throws {Error} naming `path` and the first fault
 */
export function parseContexts(text: string, path: string): ContextsFile {
  const broken = (problem: string) =>
    new Error(
      `"${path}" is not a valid contexts file: ${problem}; fix it, or remove it and run kudurru login again`,
    );
  let doc: unknown;
  try {
    doc = YAML.parse(text);
  } catch (err) {
    // The yaml package's message says the line and column, and quotes it.
    throw broken(`it is not YAML: ${messageOf(err).split("\n")[0]}`);
  }
  if (doc === null || doc === undefined) return { contexts: [] };
  if (typeof doc !== "object" || Array.isArray(doc)) {
    throw broken("it must be a map with current and contexts");
  }
  const top = doc as Record<string, unknown>;
  const unknown = Object.keys(top).find((k) =>
    k !== "current" && k !== "contexts"
  );
  if (unknown !== undefined) {
    throw broken(`unknown key "${unknown}" (the keys are current, contexts)`);
  }
  if (top.current !== undefined && typeof top.current !== "string") {
    throw broken("current must be the name of a context");
  }
  const list = top.contexts ?? [];
  if (!Array.isArray(list)) throw broken("contexts must be a list");
  const contexts = list.map((item, i) => checkContext(item, i, broken));
  const seen = new Set<string>();
  for (const c of contexts) {
    if (seen.has(c.name)) throw broken(`two contexts are named "${c.name}"`);
    seen.add(c.name);
  }
  return {
    ...(typeof top.current === "string" && { current: top.current }),
    contexts,
  };
}

function checkContext(
  item: unknown,
  i: number,
  broken: (problem: string) => Error,
): CliContext {
  const at = `contexts[${i}]`;
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    throw broken(`${at} must be a map with name, server and token`);
  }
  const o = item as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!["name", "server", "token", "caFile", "oidc"].includes(key)) {
      throw broken(
        `${at} has an unknown key "${key}" (the keys are name, server, token, caFile, oidc)`,
      );
    }
  }
  for (const key of ["name", "server", "token"] as const) {
    if (typeof o[key] !== "string" || o[key] === "") {
      throw broken(`${at}.${key} must be a text that is not empty`);
    }
  }
  if (o.caFile !== undefined && typeof o.caFile !== "string") {
    throw broken(`${at}.caFile must be the path of a PEM file`);
  }
  const problem = contextNameProblem(o.name as string);
  if (problem !== undefined) throw broken(`${at}.name: ${problem}`);
  const oidc = o.oidc === undefined
    ? undefined
    : checkOidc(o.oidc, `${at}.oidc`, broken);
  return {
    name: o.name as string,
    server: o.server as string,
    token: o.token as string,
    ...(typeof o.caFile === "string" && { caFile: o.caFile }),
    ...(oidc !== undefined && { oidc }),
  };
}

function checkOidc(
  item: unknown,
  at: string,
  broken: (problem: string) => Error,
): OidcContext {
  const keys = ["provider", "issuer", "clientID", "refreshToken"];
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    throw broken(`${at} must be a map with provider, issuer and clientID`);
  }
  const o = item as Record<string, unknown>;
  const unknown = Object.keys(o).find((k) => !keys.includes(k));
  if (unknown !== undefined) {
    throw broken(
      `${at} has an unknown key "${unknown}" (the keys are ${keys.join(", ")})`,
    );
  }
  for (const key of keys) {
    if (key === "refreshToken" && o[key] === undefined) continue;
    if (typeof o[key] !== "string" || o[key] === "") {
      throw broken(`${at}.${key} must be a text that is not empty`);
    }
  }
  return {
    provider: o.provider as string,
    issuer: o.issuer as string,
    clientID: o.clientID as string,
    ...(typeof o.refreshToken === "string" &&
      { refreshToken: o.refreshToken }),
  };
}

/**
 * Writes the contexts file mode 0600 by rename, making its directory (mode
 * 0700) when there is none.
 */
export async function writeContexts(
  path: string,
  file: ContextsFile,
): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // replaceFile keeps the mode of the file it replaces: one made readable
  // by hand is narrowed first, so a token is never written world-readable.
  try {
    const old = await Deno.stat(path);
    if (old.isFile && (old.mode ?? 0) & 0o077) {
      await Deno.chmod(path, CONTEXTS_FILE_MODE);
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) {
      throw new Error(`cannot write "${path}": ${messageOf(err)}`, {
        cause: err,
      });
    }
  }
  const doc = {
    ...(file.current !== undefined && { current: file.current }),
    contexts: file.contexts.map((c) => ({
      name: c.name,
      server: c.server,
      token: c.token,
      ...(c.caFile !== undefined && { caFile: c.caFile }),
      ...(c.oidc !== undefined && { oidc: c.oidc }),
    })),
  };
  const bytes = new TextEncoder().encode(HEADER + YAML.stringify(doc));
  await replaceFile(path, (f) => writeAll(f, bytes), {
    mode: CONTEXTS_FILE_MODE,
  });
}

/**
 * The context named `name`, or the current one without a name.
 *
 * @throws {Error} saying how to log in or which contexts there are
 */
export function pickContext(file: ContextsFile, name?: string): CliContext {
  const wanted = name ?? file.current;
  if (wanted === undefined) {
    throw new Error(
      file.contexts.length === 0
        ? "not logged in to a server: run kudurru login --server URL --username USER first"
        : `no current context: choose one with kudurru context use NAME (${
          namesOf(file)
        })`,
    );
  }
  const found = file.contexts.find((c) => c.name === wanted);
  if (found === undefined) {
    throw new Error(
      `there is no context "${wanted}"${
        file.contexts.length === 0
          ? ": run kudurru login --server URL first"
          : ` (there are: ${namesOf(file)})`
      }`,
    );
  }
  return found;
}

/** `file` with `context` added, or replacing the one of its name. */
export function withContext(
  file: ContextsFile,
  context: CliContext,
): ContextsFile {
  const others = file.contexts.filter((c) => c.name !== context.name);
  return { ...file, contexts: [...others, context] };
}

function namesOf(file: ContextsFile): string {
  return file.contexts.map((c) => c.name).join(", ");
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
