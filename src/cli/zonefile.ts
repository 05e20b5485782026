/**
 * `kudurru zonefile NAME`: a DNSZone's records as an RFC 1035 master file,
 * read from the local data directory: a primary zone as its DNSRecordSets
 * build it, a secondary zone as the copy this node transferred (local.db),
 * read-only. What the API's `GET /api/v1/dnszones/{zone}/zonefile` gives.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { DNSZone } from "../api/v1alpha1/dnszone.ts";
import type { DNSRecordSet } from "../api/v1alpha1/dnsrecordset.ts";
import { normalizeName } from "../dns/name.ts";
import { LOCAL_DB_FILE } from "../server/local_db.ts";
import { NotFoundError } from "../store/store.ts";
import { SecondaryCopies } from "../transfer/secondary_copies.ts";
import { buildZoneContent } from "../zone/content.ts";
import { formatZoneFile } from "../zone/zone_file_format.ts";
import type { ZoneContent } from "../zone/types.ts";
import { type Command, parseFlags, UsageError } from "./command.ts";
import { openLocalStore, resolveDataDir, STORE_FLAGS } from "./local_store.ts";

export const zonefileCommand: Command = {
  name: "zonefile",
  summary: "Print a zone's records as an RFC 1035 zone file",
  usage: "  kudurru zonefile NAME [--data-dir DIR] [--config FILE]\n" +
    "  NAME is the DNSZone object's name; a secondary zone prints the copy this node transferred.",
  async run(args, io) {
    const { values, positionals } = parseFlags("zonefile", args, {
      ...STORE_FLAGS,
    }, 1);
    const [name] = positionals;
    if (name === undefined) {
      throw new UsageError("kudurru zonefile: name a DNSZone");
    }
    const store = await openLocalStore(values, { readOnly: true });
    let zone: DNSZone;
    let recordSets: DNSRecordSet[];
    try {
      try {
        zone = await store.get({
          kind: "DNSZone",
          namespace: "",
          name,
        }) as DNSZone;
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        io.stderr(`kudurru zonefile: no DNSZone "${name}"\n`);
        return 1;
      }
      recordSets = (await store.list("DNSRecordSet")).items as DNSRecordSet[];
    } finally {
      await store.close();
    }
    const type = zone.spec?.type;
    if (type === "primary") {
      const build = buildZoneContent(zone, recordSets, new Date());
      io.stdout(formatZoneFile(build.content, {
        defaultTTL: zone.spec?.defaultTTL ?? 300,
        comments: [
          `zone ${build.content.name} (DNSZone ${name}), serial ${build.content.serial}`,
        ],
      }));
      return 0;
    }
    if (type === "secondary") {
      const content = secondaryCopy(resolveDataDir(values), zone);
      if (content === undefined) {
        io.stderr(
          `kudurru zonefile: DNSZone "${name}" is a secondary zone and this node holds no copy of it yet\n`,
        );
        return 1;
      }
      io.stdout(formatZoneFile(content, {
        comments: [
          `zone ${content.name} (secondary DNSZone ${name}), serial ${content.serial}, as transferred from its primaries; read-only`,
        ],
      }));
      return 0;
    }
    io.stderr(
      `kudurru zonefile: DNSZone "${name}" is a ${type} zone: it holds no records\n`,
    );
    return 1;
  },
};

/** The copy of a secondary zone this node keeps in local.db, if any. */
function secondaryCopy(
  dataDir: string,
  zone: DNSZone,
): ZoneContent | undefined {
  const zoneName = normalizeName(zone.spec!.zoneName);
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(join(dataDir, LOCAL_DB_FILE), { readOnly: true });
  } catch {
    return undefined;
  }
  try {
    const copy = new SecondaryCopies(db).load(zoneName);
    return copy === undefined ? undefined : {
      name: zoneName,
      objectName: zone.metadata.name,
      serial: copy.serial,
      rrsets: copy.rrsets,
    };
  } catch {
    return undefined;
  } finally {
    db.close();
  }
}
