/**
 * `kudurru query NAME [TYPE]`: a dig-like client that also explains
 * kudurru's answers. The question goes out over kudurru's own upstream
 * transports (UDP, TCP, DoT, DoH: src/upstream/), so what it shows is what
 * kudurru's forwarding would see; the answer is printed as dig prints it,
 * followed by the Extended DNS Error kudurru put in it (`Status: blocked
 * (list kids-ads)`). Exit 0 whenever an answer arrived, whatever its RCODE;
 * 1 when none did; 2 for usage errors.
 */
import { parseDuration } from "../config/duration.ts";
import type { Config } from "../config/schema.ts";
import {
  CLASS,
  HEADER_FLAG,
  qtypeFromText,
  TYPE,
  typeName,
} from "../dns/wire/constants.ts";
import { buildQuery, randomQueryId } from "../upstream/build_query.ts";
import {
  closeTransport,
  createTransport,
} from "../upstream/transport_factory.ts";
import type { Transport } from "../upstream/types.ts";
import { checkDomainName } from "../dns/name.ts";
import { type Command, parseFlags, UsageError } from "./command.ts";
import { loadLocalConfig } from "./local_store.ts";
import { queryForClient } from "./query_client.ts";
import { isIpAddress } from "../dns/ip_text.ts";
import { decodeAnswer, explain } from "./query_answer.ts";
import { type QueryReport, renderJson, renderText } from "./query_output.ts";
import {
  type QueryTarget,
  resolveTarget,
  type TargetFlags,
} from "./query_target.ts";

/** How long to wait for an answer without --timeout (dig's 5 s). */
export const DEFAULT_QUERY_TIMEOUT_MS = 5_000;
const MAX_TIMEOUT_MS = 60_000;

const FLAGS = {
  server: { type: "string", short: "s" },
  tcp: { type: "boolean" },
  tls: { type: "boolean" },
  https: { type: "boolean" },
  "ca-file": { type: "string" },
  "tls-name": { type: "string" },
  "client-id": { type: "string" },
  client: { type: "string" },
  context: { type: "string" },
  dnssec: { type: "boolean" },
  timeout: { type: "string" },
  output: { type: "string", short: "o" },
  config: { type: "string", short: "c" },
} as const;

export const queryCommand: Command = {
  name: "query",
  summary: "Ask a DNS server a question and explain kudurru's answer",
  usage:
    "  kudurru query NAME [TYPE] [--server HOST[:PORT]] [--tcp | --tls | --https [URL-PATH]] [--ca-file FILE]\n" +
    "                [--tls-name NAME] [--client-id ID] [--dnssec] [--timeout 5s] [-o text|json] [--config FILE]\n" +
    "  kudurru query NAME [TYPE] --client IP [--context NAME] [-o text|json]\n" +
    "  Prints the answer as dig does, then why kudurru answered so (Status: blocked (list L) from its Extended DNS Error).\n" +
    "  Without --server, asks this machine's kudurru (its configured DNS, DoT or DoH listener, and for --tls/--https its\n" +
    "  self-signed CA). --server also takes udp://, tcp://, tls://HOST#NAME and https://HOST/PATH. --client-id puts the\n" +
    "  ID where kudurru reads it: the server name ID.<--tls-name or listeners.clientIdDomain> over --tls, the path\n" +
    "  /dns-query/ID over --https. Exit 0 when an answer arrived (any RCODE), 1 when none did.\n" +
    "  --client IP asks the server of the current context (kudurru login) what it would answer that client and\n" +
    "  why (its groups, policies, the list and rule that matched, the zone or upstream), through its API: nothing\n" +
    "  is sent, counted or logged.",
  async run(args, io) {
    const [rest, httpsPath] = withHttpsPath(args);
    const { values, positionals } = parseFlags("query", rest, FLAGS, 2);
    const request = parseRequest(values, positionals, httpsPath);
    if (values.client !== undefined) {
      return await queryForClient(
        {
          name: positionals[0]!,
          type: typeName(request.type),
          client: clientOf(values),
        },
        { context: values.context, json: request.json },
        io,
      );
    }
    if (values.context !== undefined) {
      throw new UsageError(
        "kudurru query: --context goes with --client (a question asked of the server's API); without it, name the server with --server",
      );
    }
    let loaded: { config?: Config } | undefined;
    const config = () => {
      if (loaded === undefined) {
        loaded = {};
        try {
          loaded.config = loadLocalConfig({ config: values.config });
        } catch (err) {
          io.stderr(
            `kudurru query: the configuration does not load (${
              messageOf(err)
            }); asking 127.0.0.1\n`,
          );
        }
      }
      return loaded.config;
    };
    let target: QueryTarget;
    try {
      target = await resolveTarget(request.target, config);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      io.stderr(`kudurru query: ${messageOf(err)}\n`);
      return 1;
    }
    const outcome = await ask(target, request);
    if (!outcome.ok) {
      io.stderr(`kudurru query: ${outcome.why}\n`);
      return 1;
    }
    let report: QueryReport;
    try {
      const answer = decodeAnswer(outcome.message);
      report = {
        answer,
        explanation: explain(answer),
        server: target.label,
        transport: outcome.transport,
        queryTimeMs: outcome.ms,
        ...(target.clientId === undefined ? {} : { clientId: target.clientId }),
        ...(outcome.transport !== target.server.scheme
          ? { retriedOverTcp: true }
          : {}),
      };
    } catch (err) {
      io.stderr(
        `kudurru query: ${target.label} (${target.server.scheme}) sent an answer that cannot be read: ${
          messageOf(err)
        }\n`,
      );
      return 1;
    }
    io.stdout(request.json ? renderJson(report) : renderText(report));
    return 0;
  },
};

interface QueryRequest {
  name: string;
  type: number;
  dnssec: boolean;
  timeoutMs: number;
  json: boolean;
  target: TargetFlags;
}

/**
 * `--https /path` with its optional value taken out as `--https-path`:
 * node:util's parser has no optional values. A following word that starts
 * with "/" is the path; anything else is NAME or another flag.
 */
function withHttpsPath(args: string[]): [string[], string | undefined] {
  const rest: string[] = [];
  let path: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      rest.push(...args.slice(i));
      break;
    }
    const inline = /^--https=(.*)$/.exec(arg);
    if (inline) {
      path = inline[1]!;
      rest.push("--https");
    } else if (arg === "--https" && args[i + 1]?.startsWith("/")) {
      path = args[++i]!;
      rest.push(arg);
    } else {
      rest.push(arg);
    }
  }
  return [rest, path];
}

/** The question and the flags, checked. */
/** The --client address, alone: it names whom to ask for, not where to ask. */
function clientOf(values: {
  client?: string;
  server?: string;
  tcp?: boolean;
  tls?: boolean;
  https?: boolean;
  "client-id"?: string;
  dnssec?: boolean;
}): string {
  const client = values.client!;
  if (!isIpAddress(client)) {
    throw new UsageError(
      `kudurru query: --client takes an IP address, such as 192.0.2.7, not "${client}"`,
    );
  }
  const sent =
    (["server", "tcp", "tls", "https", "client-id", "dnssec"] as const)
      .filter((flag) => values[flag] !== undefined);
  if (sent.length > 0) {
    throw new UsageError(
      `kudurru query: --client asks the server's API, which sends no query: leave out --${
        sent.join(", --")
      }`,
    );
  }
  return client;
}

function parseRequest(
  values: {
    server?: string;
    tcp?: boolean;
    tls?: boolean;
    https?: boolean;
    "ca-file"?: string;
    "tls-name"?: string;
    "client-id"?: string;
    dnssec?: boolean;
    timeout?: string;
    output?: string;
  },
  positionals: string[],
  httpsPath: string | undefined,
): QueryRequest {
  const [name, typeText] = positionals;
  if (name === undefined) {
    throw new UsageError(
      "kudurru query: name the domain to ask about, such as kudurru query example.com AAAA",
    );
  }
  const problem = checkDomainName(name);
  if (problem !== null) {
    throw new UsageError(`kudurru query: ${problem}`);
  }
  const type = typeText === undefined ? TYPE.A : qtypeFromText(typeText);
  if (type === undefined) {
    throw new UsageError(
      `kudurru query: "${typeText}" is not a record type (such as A, AAAA, MX, TXT or a number)`,
    );
  }
  const schemes = (["tcp", "tls", "https"] as const).filter((s) => values[s]);
  if (schemes.length > 1) {
    throw new UsageError(
      `kudurru query: --${schemes[0]} and --${
        schemes[1]
      } conflict; give one transport`,
    );
  }
  const scheme = schemes[0] ?? "udp";
  if (httpsPath !== undefined && !/^\/[A-Za-z0-9._~\/-]*$/.test(httpsPath)) {
    throw new UsageError(
      `kudurru query: --https takes a URL path such as /dns-query, not "${httpsPath}"`,
    );
  }
  const format = values.output ?? "text";
  if (format !== "text" && format !== "json") {
    throw new UsageError(
      `kudurru query: -o must be text or json, not "${format}"`,
    );
  }
  const timeoutMs = values.timeout === undefined
    ? DEFAULT_QUERY_TIMEOUT_MS
    : parseDuration(values.timeout);
  if (
    timeoutMs === undefined || timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS
  ) {
    throw new UsageError(
      `kudurru query: --timeout "${values.timeout}" is not a duration from 1ms to 1m (such as 2s)`,
    );
  }
  const target: TargetFlags = { scheme };
  if (values.server !== undefined) target.server = values.server;
  if (httpsPath !== undefined) target.path = httpsPath;
  if (values["ca-file"] !== undefined) target.caFile = values["ca-file"];
  if (values["tls-name"] !== undefined) target.tlsName = values["tls-name"];
  if (values["client-id"] !== undefined) target.clientId = values["client-id"];
  return {
    name: name.endsWith(".") ? name : `${name}.`,
    type,
    dnssec: values.dnssec === true,
    timeoutMs,
    json: format === "json",
    target,
  };
}

type Outcome =
  | { ok: true; message: Uint8Array; transport: string; ms: number }
  | { ok: false; why: string };

/**
 * One exchange within the timeout; a truncated UDP answer is asked again
 * over TCP, as dig does. The failure names the server, the transport and
 * what went wrong.
 */
async function ask(
  target: QueryTarget,
  request: QueryRequest,
): Promise<Outcome> {
  const query = buildQuery({
    name: request.name,
    type: request.type,
    class: CLASS.IN,
    dnssecOk: request.dnssec,
    checkingDisabled: false,
  }, randomQueryId());
  const started = performance.now();
  const signal = AbortSignal.timeout(request.timeoutMs);
  let scheme = target.server.scheme;
  let transport: Transport | undefined;
  try {
    for (;;) {
      transport = createTransport({ ...target.server, scheme }, target.deps);
      const message = await transport.exchange(query, signal);
      const truncated = message.length > 3 &&
        ((message[2]! << 8) & HEADER_FLAG.TC) !== 0;
      if (!truncated || scheme !== "udp") {
        return {
          ok: true,
          message,
          transport: scheme,
          ms: performance.now() - started,
        };
      }
      await closeTransport(transport);
      transport = undefined;
      scheme = "tcp";
    }
  } catch (err) {
    const where = `${target.label} over ${scheme}`;
    const why = signal.aborted
      ? `no answer from ${where} within ${request.timeoutMs} ms`
      : `cannot ask ${where}: ${messageOf(err)}`;
    return { ok: false, why };
  } finally {
    if (transport !== undefined) await closeTransport(transport);
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
