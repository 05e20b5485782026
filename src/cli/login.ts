/**
 * `kudurru login --server URL`: connects the CLI to a server's API and
 * keeps what it needs in a context (contexts.ts), made current. With
 * --username it logs in with the password, makes an API token for this
 * CLI, and logs the session out: only the token is kept, never the
 * password, and it can be revoked on its own. With --token-file (or
 * KUDURRU_TOKEN) it checks the token and keeps it. With --provider (or
 * with neither, when the server has exactly one identity provider) it logs
 * in through the browser (oidc_login.ts) and keeps the ID token and the
 * refresh token. Secrets never come from the command line, where `ps`
 * shows them.
 */
import { parseToken } from "../auth/api_token.ts";
import {
  absoluteCaFile,
  ApiClient,
  type ApiFailure,
  describeFailure,
  failureOf,
  isLoopback,
  normalizeServer,
} from "./api_client.ts";
import {
  type Command,
  type CommandIO,
  parseFlags,
  UsageError,
} from "./command.ts";
import { browserLogin, pickProvider } from "./oidc_login.ts";
import {
  type CliContext,
  contextNameProblem,
  contextsPath,
  type OidcContext,
  readContexts,
  withContext,
  writeContexts,
} from "./contexts.ts";

/** A login hashes a password (Argon2id): generous, but not forever. */
const REQUEST_TIMEOUT_MS = 30_000;

const FLAGS = {
  server: { type: "string" },
  name: { type: "string" },
  username: { type: "string" },
  "token-file": { type: "string" },
  "ca-file": { type: "string" },
  totp: { type: "string" },
  provider: { type: "string" },
  "no-browser": { type: "boolean" },
} as const;

export const loginCommand: Command = {
  name: "login",
  summary: "Connect the CLI to a server's API (keeps a token in a context)",
  usage:
    "  kudurru login --server URL --username USER [--totp CODE] [--name NAME] [--ca-file FILE]\n" +
    "  kudurru login --server URL --token-file FILE|- [--name NAME] [--ca-file FILE]\n" +
    "  kudurru login --server URL [--provider ID] [--no-browser] [--name NAME] [--ca-file FILE]\n" +
    "  With --username the password is the first line of standard input (or KUDURRU_PASSWORD): kudurru\n" +
    "  logs in, makes an API token for this CLI and keeps only the token. --token-file keeps a token made\n" +
    "  elsewhere (- reads it from standard input; KUDURRU_TOKEN instead of the flag). The context is named\n" +
    "  --name (default: the server's host and port) and becomes the current one; contexts are kept in\n" +
    "  $XDG_CONFIG_HOME/kudurru/contexts.yaml (~/.config/kudurru/contexts.yaml), mode 0600.\n" +
    "  --ca-file trusts the CA that signed an https:// server's certificate.\n" +
    "  --provider logs in through the server's identity provider ID in a browser (the only one when the\n" +
    "  server has one and no other way is given); the browser comes back to 127.0.0.1 on a random port\n" +
    "  within 5 minutes; --no-browser only prints the URL to open.",
  async run(args, io) {
    const { values } = parseFlags("login", args, FLAGS, 0);
    if (values.server === undefined) {
      throw new UsageError(
        "kudurru login: name the server's API with --server URL (such as https://dns.example.net:8080)",
      );
    }
    const server = normalizeServer("login", values.server);
    const name = values.name ?? new URL(server).host;
    const nameProblem = contextNameProblem(name);
    if (nameProblem !== undefined) {
      throw new UsageError(`kudurru login: --name: ${nameProblem}`);
    }
    if (values["ca-file"] !== undefined && !server.startsWith("https:")) {
      throw new UsageError(
        "kudurru login: --ca-file is for an https:// server; this one is plain http://",
      );
    }
    const way = credentialsOf(values, io);
    // Find a broken contexts file before the server makes a token for it.
    const path = contextsPath(io.env);
    const file = await readContexts(path);
    if (!server.startsWith("https:") && !isLoopback(server)) {
      io.stderr(
        `kudurru login: warning: ${server} is plain HTTP: the ${
          way.kind === "password" ? "password and the " : ""
        }token cross the network unencrypted; use https:// beyond this machine\n`,
      );
    }
    const caFile = values["ca-file"] === undefined
      ? undefined
      : absoluteCaFile(values["ca-file"]);
    using client = await ApiClient.open({ server, caFile });
    let oidc: OidcContext | undefined;
    let login: { token: string; user: string };
    if (way.kind === "password") {
      login = await tokenFromPassword(
        client,
        way.username,
        await way.password(),
        values.totp,
      );
    } else if (way.kind === "token") {
      login = await checkToken(client, await way.token());
    } else {
      const provider = await pickProvider(client, way.provider);
      const tokens = await browserLogin(provider, io, {
        openBrowser: values["no-browser"] !== true,
      });
      login = await checkToken(client, tokens.idToken);
      oidc = {
        provider: tokens.provider,
        issuer: tokens.issuer,
        clientID: tokens.clientID,
        ...(tokens.refreshToken !== undefined &&
          { refreshToken: tokens.refreshToken }),
      };
    }
    const { token, user } = login;
    const context: CliContext = {
      name,
      server,
      token,
      ...(caFile !== undefined && { caFile }),
      ...(oidc !== undefined && { oidc }),
    };
    await writeContexts(path, { ...withContext(file, context), current: name });
    io.stdout(
      `Logged in to ${server} as ${user}; context "${name}" is current (kept in ${path}).\n`,
    );
    return 0;
  },
};

type Credentials =
  | { kind: "password"; username: string; password: () => Promise<string> }
  | { kind: "token"; token: () => Promise<string> }
  | { kind: "provider"; provider: string | undefined };

/** How to log in, from the flags and the environment; reads nothing yet. */
function credentialsOf(
  values: {
    username?: string;
    "token-file"?: string;
    totp?: string;
    provider?: string;
    "no-browser"?: boolean;
  },
  io: CommandIO,
): Credentials {
  const username = values.username;
  const tokenFile = values["token-file"];
  const ways = [username, tokenFile, values.provider].filter((v) =>
    v !== undefined
  );
  if (ways.length > 1) {
    throw new UsageError(
      "kudurru login: give one of --username (with the password), --token-file or --provider",
    );
  }
  if (values["no-browser"] === true && (username ?? tokenFile) !== undefined) {
    throw new UsageError(
      "kudurru login: --no-browser goes with a login through an identity provider",
    );
  }
  if (values.provider !== undefined) {
    if (values.provider === "") {
      throw new UsageError("kudurru login: --provider is empty");
    }
    return { kind: "provider", provider: values.provider };
  }
  if (values.totp !== undefined && username === undefined) {
    throw new UsageError("kudurru login: --totp goes with --username");
  }
  if (username !== undefined) {
    if (username === "") {
      throw new UsageError("kudurru login: --username is empty");
    }
    return {
      kind: "password",
      username,
      password: async () => {
        const env = io.env("KUDURRU_PASSWORD");
        if (env !== undefined && env !== "") return env;
        // The first line only: a here-string or `echo` adds a newline that
        // is not part of the password.
        const line = (await io.readStdin()).split(/\r?\n/)[0] ?? "";
        if (line === "") {
          throw new UsageError(
            "kudurru login: no password: write it on standard input (or set KUDURRU_PASSWORD)",
          );
        }
        return line;
      },
    };
  }
  if (tokenFile !== undefined) {
    return {
      kind: "token",
      token: async () =>
        tokenText(
          tokenFile === "-"
            ? await io.readStdin()
            : await readTokenFile(tokenFile),
          tokenFile === "-" ? "standard input" : `"${tokenFile}"`,
        ),
    };
  }
  const env = io.env("KUDURRU_TOKEN");
  if (env !== undefined && env !== "") {
    return {
      kind: "token",
      token: () => Promise.resolve(tokenText(env, "KUDURRU_TOKEN")),
    };
  }
  // Neither: the server's identity provider, when it has exactly one
  // (pickProvider says so otherwise).
  return { kind: "provider", provider: undefined };
}

async function readTokenFile(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    throw new Error(
      `cannot read the token file "${path}": ${
        err instanceof Error ? err.message : String(err)
      }`,
      { cause: err },
    );
  }
}

/** The token in `text`, without the line end a file has. */
function tokenText(text: string, from: string): string {
  const token = text.trim();
  if (parseToken(token) === undefined) {
    throw new Error(
      `${from} must hold one API token (kdr_<id>_<secret>), and nothing else`,
    );
  }
  return token;
}

/**
 * Logs in, makes a token for this CLI, and logs the session out again
 * (also when making the token failed).
 */
async function tokenFromPassword(
  client: ApiClient,
  username: string,
  password: string,
  totp: string | undefined,
): Promise<{ token: string; user: string }> {
  const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  const res = await client.request("POST", "/api/v1/auth/login", {
    body: JSON.stringify({
      username,
      password,
      ...(totp !== undefined && { totp }),
    }),
    signal,
  });
  if (!res.ok) throw new Error(loginRefused(await failureOf(res)));
  const data = (await res.json() as { data?: LoginAnswer }).data;
  const cookie = sessionCookie(res.headers);
  if (data === undefined || typeof data.csrf !== "string" || !cookie) {
    throw new Error(
      `${client.server} answered the login without a session: is it a kudurru API?`,
    );
  }
  const session = { cookie, csrf: data.csrf };
  try {
    if (data.mustChangePassword) {
      throw new Error(
        `the password of ${data.user} must be changed before anything else: log in to the web UI at ${client.server} and change it, then run kudurru login again`,
      );
    }
    const made = await client.request("POST", "/api/v1/tokens", {
      session,
      body: JSON.stringify({ description: `kudurru CLI on ${hostname()}` }),
      signal,
    });
    if (!made.ok) {
      throw new Error(
        `logged in, but could not make an API token: ${
          describeFailure(await failureOf(made))
        }`,
      );
    }
    const token = (await made.json() as { data?: { token?: unknown } }).data
      ?.token;
    if (typeof token !== "string") {
      throw new Error(`${client.server} made a token but did not send it`);
    }
    return { token, user: data.user };
  } finally {
    // The session was only the way to the token; end it.
    await client.request("POST", "/api/v1/auth/logout", { session, signal })
      .then((r) => r.body?.cancel())
      .catch(() => {});
  }
}

interface LoginAnswer {
  user: string;
  mustChangePassword: boolean;
  csrf: string;
}

/** What a refused login means for the person typing. */
function loginRefused(failure: ApiFailure): string {
  if (failure.totpRequired) {
    return "this account has a second factor: add --totp CODE, the current code of the authenticator app";
  }
  if (failure.status === 401) {
    return `${failure.message}: check them and try again`;
  }
  if (failure.status === 429) {
    return `${failure.message}${
      failure.retryAfterSeconds !== undefined
        ? ` (in ${failure.retryAfterSeconds} s)`
        : ""
    }`;
  }
  if (failure.status === 404) {
    return "the server has no /api/v1/auth/login: is --server the address of kudurru's API (listeners.api)?";
  }
  return `the login failed: ${describeFailure(failure)}`;
}

/** The `name=value` of the session cookie the login set. */
function sessionCookie(headers: Headers): string | undefined {
  const set = headers.getSetCookie().find((c) =>
    /^(__Host-)?kudurru_session=/.test(c)
  );
  return set?.split(";")[0];
}

/** Checks that `token` is accepted; who it belongs to. */
async function checkToken(
  client: ApiClient,
  token: string,
): Promise<{ token: string; user: string }> {
  const res = await client.request("GET", "/api/v1/auth/status", {
    token,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  if (!res.ok) {
    const failure = await failureOf(res);
    throw new Error(
      failure.status === 401
        ? `the server does not accept the token (${failure.message}): it may have expired or been revoked; make a new one`
        : `cannot check the token: ${describeFailure(failure)}`,
    );
  }
  const data = (await res.json() as {
    data?: { authenticated?: boolean; user?: string };
  }).data;
  if (data?.authenticated !== true || typeof data.user !== "string") {
    throw new Error(`${client.server} does not take the token as a login`);
  }
  return { token, user: data.user };
}

/** Names the token among the user's others ("kudurru CLI on laptop"). */
function hostname(): string {
  try {
    return Deno.hostname();
  } catch {
    return "an unnamed host";
  }
}
