/**
 * How `kudurru query` prints an answer: dig's layout (header, OPT
 * pseudosection, sections, query time and server), so people and scripts
 * used to dig read it at once, then a `Status:` line with kudurru's
 * explanation of the answer; or all of it as one JSON object.
 */
import type {
  AnswerRecord,
  DecodedAnswer,
  Explanation,
} from "./query_answer.ts";

/** What was asked where, besides the answer itself. */
export interface QueryReport {
  answer: DecodedAnswer;
  explanation: Explanation;
  /** "127.0.0.1#53" in dig's spelling, or the DoH URL. */
  server: string;
  /** udp, tcp, tls or https. */
  transport: string;
  /** The client ID sent, if any. */
  clientId?: string;
  queryTimeMs: number;
  /** The answer arrived over TCP after a truncated one over UDP. */
  retriedOverTcp?: boolean;
}

/** The one-line explanation: `Status: blocked (list kids-ads)`. */
export function statusLine(e: Explanation): string {
  switch (e.kind) {
    case "blocked":
      return `Status: blocked (list ${e.list}${
        e.rule === undefined ? "" : `, rule ${e.rule}`
      })`;
    case "filtered":
      return `Status: filtered (not on an allow list of allow-only policy ${e.policy})`;
    case "extended-error":
      return `Status: ${e.name} (EDE ${e.code})${
        e.text === "" ? "" : `: ${e.text}`
      }`;
    case "answered":
      return `Status: answered (${e.rcode})`;
  }
}

/** The dig-like text. */
export function renderText(r: QueryReport): string {
  const a = r.answer;
  const lines = [
    `;; ->>HEADER<<- opcode: ${a.opcode}, status: ${a.rcode}, id: ${a.id}`,
    `;; flags: ${
      a.flags.join(" ")
    }; QUERY: ${a.question.length}, ANSWER: ${a.answer.length}, AUTHORITY: ${a.authority.length}, ADDITIONAL: ${
      a.additional.length + (a.edns ? 1 : 0)
    }`,
  ];
  if (a.edns !== undefined) {
    lines.push(
      "",
      ";; OPT PSEUDOSECTION:",
      `; EDNS: version: ${a.edns.version}, flags: ${
        a.edns.flags.join(" ")
      }; udp: ${a.edns.udpSize}`,
    );
    for (const ede of a.extendedErrors) {
      lines.push(
        `; EDE: ${ede.code} (${ede.name})${
          ede.text === "" ? "" : `: (${ede.text})`
        }`,
      );
    }
  }
  lines.push("", ";; QUESTION SECTION:");
  for (const q of a.question) lines.push(`;${q.name}\t\t${q.class}\t${q.type}`);
  section(lines, "ANSWER", a.answer);
  section(lines, "AUTHORITY", a.authority);
  section(lines, "ADDITIONAL", a.additional);
  lines.push(
    "",
    `;; Query time: ${Math.round(r.queryTimeMs)} msec`,
    `;; SERVER: ${r.server} (${r.transport}${
      r.clientId === undefined ? "" : `, client ID ${r.clientId}`
    })${r.retriedOverTcp ? ", truncated over udp, asked again over tcp" : ""}`,
    "",
    statusLine(r.explanation),
    "",
  );
  return lines.join("\n");
}

/** The same as one JSON object (with a trailing newline). */
export function renderJson(r: QueryReport): string {
  return JSON.stringify(
    {
      server: r.server,
      transport: r.transport,
      ...(r.clientId === undefined ? {} : { clientId: r.clientId }),
      queryTimeMs: Math.round(r.queryTimeMs),
      ...(r.retriedOverTcp ? { retriedOverTcp: true } : {}),
      ...r.answer,
      status: r.explanation,
    },
    null,
    2,
  ) + "\n";
}

function section(lines: string[], title: string, records: AnswerRecord[]) {
  if (records.length === 0) return;
  lines.push("", `;; ${title} SECTION:`);
  for (const rr of records) {
    lines.push(`${rr.name}\t${rr.ttl}\t${rr.class}\t${rr.type}\t${rr.data}`);
  }
}
