/**
 * `kudurru api METHOD PATH [-d JSON|@FILE|-]`: one request to the API of
 * the current context (or --context NAME) with its token, the way `gh api`
 * does it: the answer's body is printed (JSON indented, anything else as it
 * streams in, such as a query-log tail), and the exit code says whether it
 * was a 2xx. An error answer's message goes to stderr, so a script can tell
 * them apart.
 */
import { ApiClient, describeFailure, failureOf } from "./api_client.ts";
import {
  type Command,
  type CommandIO,
  parseFlags,
  UsageError,
} from "./command.ts";
import { contextsPath, pickContext, readContexts } from "./contexts.ts";
import { freshContext } from "./oidc_session.ts";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

const FLAGS = {
  data: { type: "string", short: "d" },
  context: { type: "string" },
} as const;

export const apiCommand: Command = {
  name: "api",
  summary: "Send one request to a server's API with the context's token",
  usage:
    "  kudurru api GET|POST|PUT|PATCH|DELETE PATH [-d JSON|-d @FILE|-d -] [--context NAME]\n" +
    "  PATH starts with /api/ (such as /api/v1/node); -d is the JSON body, @FILE reads it from a file, - from\n" +
    "  standard input (PATCH sends it as a merge patch). Prints the answer (JSON indented); exits 0 for a 2xx\n" +
    "  answer, 1 otherwise with the error on stderr. Uses the current context (kudurru login, kudurru context).",
  async run(args, io) {
    const { values, positionals } = parseFlags("api", args, FLAGS, 2);
    const [methodText, path] = positionals;
    if (methodText === undefined || path === undefined) {
      throw new UsageError(
        "kudurru api: give a method and a path, such as: kudurru api GET /api/v1/node",
      );
    }
    const method = methodText.toUpperCase();
    if (!(METHODS as readonly string[]).includes(method)) {
      throw new UsageError(
        `kudurru api: the method is one of ${
          METHODS.join(", ")
        }, not "${methodText}"`,
      );
    }
    if (!path.startsWith("/api/")) {
      throw new UsageError(
        `kudurru api: the path starts with /api/ (such as /api/v1/node), not "${path}"`,
      );
    }
    if (values.data !== undefined && method === "GET") {
      throw new UsageError("kudurru api: a GET sends no body; drop -d");
    }
    const body = values.data === undefined
      ? undefined
      : await jsonBody(values.data, io);
    const file = contextsPath(io.env);
    const context = await freshContext(
      pickContext(await readContexts(file), values.context),
      file,
    );
    using client = await ApiClient.open(context);
    const res = await client.request(method, path, {
      token: context.token,
      ...(body !== undefined && {
        body,
        contentType: method === "PATCH"
          ? "application/merge-patch+json"
          : "application/json",
      }),
    });
    if (!res.ok) {
      const failure = await failureOf(res);
      io.stderr(`kudurru api: ${describeFailure(failure)}\n`);
      if (failure.status === 401) {
        io.stderr(
          `kudurru api: the token of context "${context.name}" is not accepted: it may have expired or been revoked; run kudurru login --server ${context.server} again\n`,
        );
      }
      return 1;
    }
    await printBody(res, io);
    return 0;
  },
};

/**
 * The body -d names, checked to be JSON here, so a typo is a usage error
 * rather than the server's 400.
 */
async function jsonBody(data: string, io: CommandIO): Promise<string> {
  let text = data;
  let from = "-d";
  if (data === "-") {
    text = await io.readStdin();
    from = "standard input";
  } else if (data.startsWith("@")) {
    const file = data.slice(1);
    try {
      text = await Deno.readTextFile(file);
    } catch (err) {
      throw new Error(
        `cannot read the body from "${file}": ${
          err instanceof Error ? err.message : String(err)
        }`,
        { cause: err },
      );
    }
    from = `"${file}"`;
  }
  try {
    JSON.parse(text);
  } catch (err) {
    throw new UsageError(
      `kudurru api: the body from ${from} is not JSON: ${
        err instanceof Error ? err.message : String(err)
      }`,
    );
  }
  return text;
}

/** JSON indented; other text as it arrives (a tail goes on until Ctrl-C). */
async function printBody(res: Response, io: CommandIO): Promise<void> {
  if (res.body === null) return;
  const type = res.headers.get("content-type") ?? "";
  if (/^application\/(.+\+)?json\b/i.test(type)) {
    const text = await res.text();
    if (text === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      io.stdout(text.endsWith("\n") ? text : `${text}\n`);
      return;
    }
    io.stdout(`${JSON.stringify(value, null, 2)}\n`);
    return;
  }
  for await (const chunk of res.body.pipeThrough(new TextDecoderStream())) {
    io.stdout(chunk);
  }
}
