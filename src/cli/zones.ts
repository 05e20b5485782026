/**
 * `kudurru zones`: the zones at a glance, one line each: the object's name,
 * the DNS name it serves, its type, the serial it is at, how many records
 * it holds (when the server has counted them) and whether it is Ready.
 * Local or over the API, as target.ts decides.
 */
import { type Command, parseFlags } from "./command.ts";
import { findKind } from "../api/v1alpha1/kinds.ts";
import type { Condition, KObject } from "../api/v1alpha1/meta.ts";
import { resolveTarget, TARGET_FLAGS } from "./target.ts";
import { listObjects } from "./get.ts";
import { parseOutputFormat, renderObjects } from "./output.ts";
import { renderTable } from "./object_table.ts";

export const zonesCommand: Command = {
  name: "zones",
  summary: "List the zones with their serial, record count and readiness",
  usage:
    "  kudurru zones [-o table|yaml|json] [--context NAME | --data-dir DIR | --config FILE]\n" +
    "  Reads the server of --context, or of the current context (kudurru login); with --data-dir or\n" +
    "  --config, or when not logged in, this machine's data directory.",
  async run(args, io) {
    const { values } = parseFlags("zones", args, {
      ...TARGET_FLAGS,
      output: { type: "string", short: "o" },
    }, 0);
    const format = parseOutputFormat("zones", values.output);
    const target = await resolveTarget("zones", values, io);
    const zones = await listObjects(target, findKind("DNSZone")!, undefined);
    if (format !== "table") {
      io.stdout(renderObjects(zones, format, false));
      return 0;
    }
    io.stdout(zonesTable(zones));
    return 0;
  },
};

interface ZoneFields {
  spec?: { zoneName?: string; type?: string };
  status?: {
    serial?: number;
    recordCount?: number;
    conditions?: Condition[];
  };
}

/** The table `zones` prints. */
export function zonesTable(zones: KObject[]): string {
  if (zones.length === 0) return "No zones.\n";
  return renderTable(
    ["NAME", "ZONE", "TYPE", "SERIAL", "RECORDS", "READY"],
    zones.map((z) => {
      const { spec, status } = z as ZoneFields;
      return [
        z.metadata.name,
        spec?.zoneName ?? "",
        spec?.type ?? "",
        status?.serial?.toString() ?? "",
        status?.recordCount?.toString() ?? "",
        readyOf(status?.conditions),
      ];
    }),
  );
}

/** "True", or "False (Reason)" so a broken zone says why at a glance. */
function readyOf(conditions: Condition[] | undefined): string {
  const ready = conditions?.find((c) => c.type === "Ready");
  if (ready === undefined) return "";
  return ready.status === "True"
    ? ready.status
    : `${ready.status} (${ready.reason})`;
}
