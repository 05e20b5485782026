/**
 * `kudurru import technitium PATH`: what an operator exports from a
 * Technitium DNS Server, in one directory, as kudurru objects and
 * settings. Each file is recognised by its content, not trusted by name:
 *
 * - zone exports (`*.zone`, `*.txt`; Zones → zone → Export), text starting
 *   with `$ORIGIN` (technitium_zone_export.ts);
 * - the DNS settings JSON (`/api/settings/get`; technitium_settings.ts);
 * - the Advanced Blocking and Advanced Forwarding apps' `dnsApp.config`
 *   (technitium_blocking_app.ts, technitium_forwarding_app.ts);
 * - Allowed / Blocked zones exports (`/api/allowed/export`,
 *   `/api/blocked/export`: one domain a line) named `allowed*` / `blocked*`.
 *
 * Technitium's backup zip keeps zones in a binary format (`DZ`) with the
 * same `.zone` name; such a file is reported, never parsed. A zip is
 * refused with the way to get text exports instead.
 */
import { basename, join } from "node:path";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { checkDomainName, normalizeName, toFqdn } from "../dns/name.ts";
import { ImportContext, namespaced, validOnly } from "./import_context.ts";
import type { UpstreamSettings } from "./adguard_upstreams.ts";
import {
  ImportError,
  type ImportResult,
  type ReadFile,
} from "./import_result.ts";
import {
  isBlockingAppConfig,
  mapBlockingApp,
} from "./technitium_blocking_app.ts";
import {
  isForwardingAppConfig,
  mapForwardingApp,
} from "./technitium_forwarding_app.ts";
import {
  mapSettings,
  type ServerLists,
  settingsOf,
} from "./technitium_settings.ts";
import { exportOrigin, mapZoneExport } from "./technitium_zone_export.ts";

/** What to do instead of handing over a binary zone file. */
export const EXPORT_AS_TEXT =
  "export the zone as a text file from the web console: Zones → zone → Export";

/** Most bytes a file may have to be looked at (a zone export's parser limit is 4 MiB). */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

/**
 * Reads the export directory `path` (or one exported file) and maps it.
 *
 * @throws {ImportError} when `path` is a zip, cannot be read, or holds
 *   nothing Technitium exports
 */
export async function importTechnitium(
  path: string,
  readFile: ReadFile = Deno.readFile,
): Promise<ImportResult> {
  if (/\.zip$/i.test(path)) {
    throw new ImportError(
      `${path} is a zip (a Technitium backup?): unzip it and import the folder for its apps' dnsApp.config files; its zones and dns.config are binary, so ${EXPORT_AS_TEXT}, and save the settings JSON (/api/settings/get) beside them`,
    );
  }
  const files = await listFiles(path);
  const ctx = new ImportContext();
  // Kept for the server-wide Policy (defaultPolicy), whatever the apps name.
  ctx.uniqueName("ClientGroup", "default", "default");
  ctx.uniqueName("Policy", "default", "default");
  const upstreams: UpstreamSettings = { groups: {}, conditional: {} };
  const blocking: Record<string, unknown> = {};
  const lists: ServerLists = { blockListRefs: [], allowListRefs: [] };
  const objects: KObject[] = [];
  const zones: { label: string; text: string; zoneName: string }[] = [];
  const apps: { label: string; run: () => KObject[] }[] = [];
  let recognised = 0;

  for (const file of files) {
    const label = basename(file);
    const bytes = await read(readFile, file);
    if (bytes.length >= 2 && bytes[0] === 0x44 && bytes[1] === 0x5a) {
      recognised++;
      ctx.skipped(
        label,
        "binary Technitium zone file (DZ)",
        `the backup's zone format is not readable here: ${EXPORT_AS_TEXT}`,
      );
      continue;
    }
    if (bytes.length > MAX_FILE_BYTES) {
      ctx.skipped(label, "file", `larger than ${MAX_FILE_BYTES} bytes`);
      continue;
    }
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      ctx.skipped(label, "file", "not UTF-8 text, nor a Technitium export");
      continue;
    }
    const json = parseJson(text);
    if (json !== undefined) {
      const settings = settingsOf(json);
      if (settings !== undefined) {
        recognised++;
        objects.push(
          ...mapSettings(ctx, label, settings, upstreams, blocking, lists),
        );
      } else if (isBlockingAppConfig(json)) {
        recognised++;
        apps.push({
          label,
          run: () => mapBlockingApp(ctx, label, json, lists),
        });
      } else if (isForwardingAppConfig(json)) {
        recognised++;
        apps.push({
          label,
          run: () => {
            mapForwardingApp(ctx, label, json, upstreams);
            return [];
          },
        });
      } else {
        ctx.skipped(
          label,
          "JSON file",
          "not Technitium settings or an app config this importer reads",
        );
      }
      continue;
    }
    const origin = exportOrigin(text);
    if (origin !== undefined) {
      recognised++;
      zones.push({ label, text, zoneName: origin });
      continue;
    }
    const domainList = /^(allowed|blocked)/i.exec(label);
    if (domainList !== null) {
      const made = mapZoneList(
        ctx,
        label,
        text,
        domainList[1]!.toLowerCase() as "allowed" | "blocked",
        lists,
      );
      if (made !== undefined) {
        recognised++;
        objects.push(made);
        continue;
      }
    }
    ctx.skipped(
      label,
      "file",
      "not a Technitium zone export ($ORIGIN first), settings JSON, app config or allowed/blocked list",
    );
  }
  if (recognised === 0) {
    throw new ImportError(
      `${path} holds no Technitium export: expected zone exports (text starting with $ORIGIN; ${EXPORT_AS_TEXT}), the settings JSON (/api/settings/get), an app's dnsApp.config, or allowed/blocked zone lists`,
    );
  }
  // Settings first, so the apps add their groups over the server's.
  for (const app of apps) objects.push(...app.run());
  for (const z of zones) {
    objects.push(
      ...mapZoneExport(ctx, z.label, z.text, z.zoneName, upstreams).objects,
    );
  }
  if (lists.blockListRefs.length + lists.allowListRefs.length > 0) {
    objects.push(...defaultPolicy(ctx, lists));
  }
  const settings: Record<string, unknown> = {};
  if (Object.keys(upstreams.groups).length > 0) {
    settings.upstreams = {
      groups: upstreams.groups,
      ...(Object.keys(upstreams.conditional).length > 0 &&
        { conditional: upstreams.conditional }),
    };
  }
  if (Object.keys(blocking).length > 0) settings.blocking = blocking;
  return { objects: validOnly(ctx, objects), settings, report: ctx.report };
}

/** The files to look at: the directory's (sorted, not recursing), or the one file. */
async function listFiles(path: string): Promise<string[]> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    throw new ImportError(
      `Cannot read ${path}: ${
        error instanceof Error ? error.message : String(error)
      }`,
      { cause: error },
    );
  }
  if (!info.isDirectory) return [path];
  const names: string[] = [];
  for await (const entry of Deno.readDir(path)) {
    if (entry.isFile && !entry.name.startsWith(".")) names.push(entry.name);
  }
  return names.sort().map((n) => join(path, n));
}

async function read(readFile: ReadFile, path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new ImportError(
      `Cannot read ${path}: ${
        error instanceof Error ? error.message : String(error)
      }`,
      { cause: error },
    );
  }
}

function parseJson(text: string): unknown {
  const t = text.trimStart();
  if (!t.startsWith("{")) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

/**
 * An Allowed or Blocked zones export (one domain a line; each covers the
 * name and every name below it) as an inline adblock BlockList.
 */
function mapZoneList(
  ctx: ImportContext,
  label: string,
  text: string,
  kind: "allowed" | "blocked",
  lists: ServerLists,
): KObject | undefined {
  const domains: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const fqdn = normalizeName(toFqdn(line));
    if (checkDomainName(fqdn) !== null) return undefined;
    domains.push(fqdn.slice(0, -1));
  }
  if (domains.length === 0) return undefined;
  const mode = kind === "allowed" ? "allow" : "block";
  const name = ctx.uniqueName("BlockList", `technitium-${kind}-zones`, kind);
  (mode === "allow" ? lists.allowListRefs : lists.blockListRefs).push(name);
  ctx.mapped(
    label,
    `${domains.length} ${kind} zone(s)`,
    `BlockList ${name} (mode ${mode}, inline adblock) in Policy default`,
  );
  return namespaced("BlockList", name, {
    mode,
    sources: [{
      inline: domains.map((d) => `||${d}^`).join("\n") + "\n",
      format: "adblock",
      name: `Technitium ${kind} zones`,
    }],
  });
}

/** The server-wide lists over everyone: Policy default, as the first-boot one is named. */
function defaultPolicy(ctx: ImportContext, lists: ServerLists): KObject[] {
  ctx.mapped(
    "settings",
    "server-wide blocking",
    `Policy default (replaces the first-boot default policy and its starter list) over ClientGroup default (everyone): ${lists.blockListRefs.length} block list(s), ${lists.allowListRefs.length} allow list(s)`,
  );
  return [
    namespaced("ClientGroup", "default", {
      clients: [{ cidr: "0.0.0.0/0" }, { cidr: "::/0" }],
    }),
    namespaced("Policy", "default", {
      clientGroupRefs: ["default"],
      ...(lists.blockListRefs.length > 0 &&
        { blockListRefs: lists.blockListRefs }),
      ...(lists.allowListRefs.length > 0 &&
        { allowListRefs: lists.allowListRefs }),
    }),
  ];
}
