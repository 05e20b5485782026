/**
 * The importers `kudurru import TOOL PATH` knows, by tool name. Each reads
 * one tool's configuration (import_result.ts says what it gives back).
 */
import type { ImportResult, ReadFile } from "./import_result.ts";
import { importAdguard } from "./adguard.ts";
import { importBind } from "./bind.ts";
import { importBlocky } from "./blocky.ts";
import { importDnsmasq } from "./dnsmasq.ts";
import { importPihole } from "./pihole.ts";
import { importTechnitium } from "./technitium.ts";

export type Importer = (
  path: string,
  readFile?: ReadFile,
) => Promise<ImportResult>;

/** What each tool's PATH is, for the usage text. */
export interface ImporterEntry {
  importer: Importer;
  reads: string;
}

export const IMPORTERS: Record<string, ImporterEntry> = {
  adguard: { importer: importAdguard, reads: "AdGuardHome.yaml" },
  bind: {
    importer: importBind,
    reads: "named.conf (its zone files beside it, or in options { directory })",
  },
  blocky: { importer: importBlocky, reads: "blocky's config.yml" },
  dnsmasq: {
    importer: importDnsmasq,
    reads:
      "a dnsmasq configuration file, or a directory such as /etc/dnsmasq.d",
  },
  pihole: {
    importer: importPihole,
    reads:
      "a Teleporter zip (v6) or tar.gz (v5), or a directory such as /etc/pihole (pihole.toml, gravity.db)",
  },
  technitium: {
    importer: importTechnitium,
    reads:
      "a directory (or one file) of zone exports as text, the settings JSON and app configs; not a backup zip",
  },
};
