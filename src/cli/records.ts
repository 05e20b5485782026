/**
 * `kudurru records add|rm ZONE NAME TYPE VALUE [--ttl N]`: one record into
 * or out of a zone through the server's record routes
 * (/api/v1/dnszones/{zone}/records), without writing a DNSRecordSet by
 * hand. It needs a server: the API keeps the records it adds in record
 * sets of its own, which a data directory edited directly has no part in,
 * so without a context it says how to log in (or to apply a file locally).
 */
import { type Command, parseFlags, UsageError } from "./command.ts";
import { contextsPath, pickContext, readContexts } from "./contexts.ts";
import { freshContext } from "./oidc_session.ts";
import { STORE_FLAGS } from "./local_store.ts";
import { ApiObjects } from "./api_objects.ts";

interface RecordRow {
  name: string;
  type: string;
  ttl: number;
  data: string;
  recordSet: { namespace: string; name: string };
}

interface Problem {
  reason: string;
  message: string;
}

export const recordsCommand: Command = {
  name: "records",
  summary: "Add or remove one record of a zone on a server",
  usage:
    "  kudurru records add ZONE NAME TYPE VALUE [--ttl N] [--context NAME]\n" +
    "  kudurru records rm ZONE NAME TYPE VALUE [--context NAME]\n" +
    "  ZONE is the DNSZone's object name; NAME is absolute (www.example.org) or @ for the apex; VALUE is the\n" +
    "  record's data as a zone file writes it (words after TYPE are joined: MX 10 mail.example.org).\n" +
    "  --ttl sets the TTL of the whole RRset. Works on the server of --context or the current context\n" +
    "  (kudurru login); on this machine's data directory, use kudurru apply -f with a DNSRecordSet.",
  async run(args, io) {
    const { values, positionals } = parseFlags("records", args, {
      ...STORE_FLAGS,
      context: { type: "string" },
      ttl: { type: "string" },
    });
    const [verb, zone, name, type, ...value] = positionals;
    if (verb !== "add" && verb !== "rm") {
      throw new UsageError(
        `kudurru records: say add or rm${
          verb === undefined ? "" : `, not "${verb}"`
        }`,
      );
    }
    if (!zone || !name || !type || value.length === 0) {
      throw new UsageError(
        `kudurru records ${verb}: give ZONE NAME TYPE VALUE, such as: kudurru records ${verb} home www.home.arpa A 192.0.2.10`,
      );
    }
    if (values["data-dir"] !== undefined || values.config !== undefined) {
      throw new UsageError(
        "kudurru records: works through a server's API, not on a data directory; there, use kudurru apply -f with a DNSRecordSet",
      );
    }
    const ttl = values.ttl === undefined ? undefined : ttlOf(values.ttl);
    if (ttl !== undefined && verb === "rm") {
      throw new UsageError("kudurru records rm: --ttl goes with add");
    }
    const notLoggedIn = new Error(
      "records are changed through a server's API: run kudurru login --server URL first (or change them on this machine with kudurru apply -f and a DNSRecordSet)",
    );
    let where: string;
    try {
      where = contextsPath(io.env);
    } catch {
      throw notLoggedIn;
    }
    const file = await readContexts(where);
    if (values.context === undefined && file.current === undefined) {
      throw notLoggedIn;
    }
    const context = await freshContext(
      pickContext(file, values.context),
      where,
    );
    using api = await ApiObjects.open(context);
    const path = `/api/v1/dnszones/${encodeURIComponent(zone)}/records`;
    const record = { name, type, data: value.join(" ") };
    if (verb === "add") {
      const answer = await api.call("POST", path, {
        ...record,
        ...(ttl !== undefined && { ttl }),
      }) as { record: RecordRow; problems?: Problem[] };
      io.stdout(`${rowText(answer.record)} added to DNSZone ${zone}\n`);
      // Stored, but the zone may not serve it as it is: say why.
      for (const p of answer.problems ?? []) {
        io.stderr(`warning: ${p.message} (${p.reason})\n`);
      }
      return 0;
    }
    const answer = await api.call("DELETE", path, record) as {
      removed: RecordRow[];
    };
    for (const row of answer.removed) {
      io.stdout(`${rowText(row)} removed from DNSZone ${zone}\n`);
    }
    return 0;
  },
};

/** "www.home.arpa. 300 A 192.0.2.10", as a zone file line reads. */
function rowText(row: RecordRow): string {
  return `${row.name} ${row.ttl} ${row.type} ${row.data}`;
}

function ttlOf(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) {
    throw new UsageError(
      `kudurru records: --ttl is a whole number of seconds, not "${text}"`,
    );
  }
  return n;
}
