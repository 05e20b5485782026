/**
 * `kudurru import pihole PATH`: a Pi-hole v6 configuration as kudurru
 * objects and settings. PATH is a Teleporter zip, a v5 Teleporter tar.gz,
 * or a directory such as `/etc/pihole` (pihole_archive.ts). `pihole.toml`
 * gives the upstreams, reverse servers, blocking answer and cache size
 * (pihole_toml.ts) and the local records (pihole_records.ts); `gravity.db`
 * gives the lists, groups and clients (pihole_gravity.ts,
 * pihole_groups.ts).
 */
import { join } from "node:path";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { ImportContext, validOnly } from "./import_context.ts";
import type { ImportResult, ReadFile } from "./import_result.ts";
import { readPiholeFiles } from "./pihole_archive.ts";
import {
  gravityFromV5Json,
  type GravityTables,
  readGravityDb,
} from "./pihole_gravity.ts";
import { mapGravity } from "./pihole_groups.ts";
import {
  localDomain,
  mapRecords,
  type RecordLine,
  tomlRecordLines,
} from "./pihole_records.ts";
import { mapTomlSettings, parsePiholeToml, upstreamOf } from "./pihole_toml.ts";

/**
 * Reads PATH and maps it.
 *
 * @throws {ImportError} when PATH is not a Pi-hole configuration (the
 *   message says what it is instead)
 */
export async function importPihole(
  path: string,
  readFile: ReadFile = Deno.readFile,
): Promise<ImportResult> {
  const files = await readPiholeFiles(path, readFile);
  const ctx = new ImportContext();
  const toml = files.toml === undefined
    ? undefined
    : parsePiholeToml(files.toml.where, files.toml.text);
  const gravity = await gravityTables(files);

  const settings: Record<string, unknown> = {};
  const objects: KObject[] = [];
  const recordLines: RecordLine[] = [];
  let domain: { name: string; local: boolean } | undefined;
  let forwarded: string[] = [];
  if (toml !== undefined) {
    const mapped = mapTomlSettings(ctx, toml);
    if (mapped.upstreams !== undefined) settings.upstreams = mapped.upstreams;
    if (mapped.blocking !== undefined) settings.blocking = mapped.blocking;
    if (mapped.cache !== undefined) settings.cache = mapped.cache;
    forwarded = mapped.forwardedDomains;
    recordLines.push(...tomlRecordLines(toml));
    domain = localDomain(toml);
  }
  if (files.v5 !== undefined) {
    recordLines.push(...v5RecordLines(files.v5.text));
    mapSetupVars(ctx, files.v5.text.get("setupVars.conf"), settings);
  }
  if (domain !== undefined && domain.local && forwarded.includes(domain.name)) {
    ctx.mapped(
      "dns.domain",
      `local domain ${domain.name}`,
      "sent to its reverse server (upstreams.conditional), so no local zone",
    );
  }
  objects.push(
    ...mapRecords(
      ctx,
      recordLines,
      domain?.name,
      domain !== undefined && domain.local &&
        !forwarded.includes(domain.name),
    ),
  );
  if (gravity !== undefined) objects.push(...mapGravity(ctx, gravity));
  else {
    ctx.skipped(
      files.kind,
      "gravity.db",
      "not present: no lists, groups or clients imported (the first-boot default policy stays)",
    );
  }
  for (const entry of files.ignored) {
    ctx.skipped(
      entry,
      "archive entry",
      /dnsmasq\.d\//.test(entry)
        ? "a dnsmasq snippet: extract it and run `kudurru import dnsmasq` on it"
        : "not configuration kudurru imports (hosts file, DHCP leases, FTL's network database)",
    );
  }
  return { objects: validOnly(ctx, objects), settings, report: ctx.report };
}

async function gravityTables(
  files: Awaited<ReturnType<typeof readPiholeFiles>>,
): Promise<GravityTables | undefined> {
  if (files.v5 !== undefined) {
    return gravityFromV5Json(`${files.kind}`, files.v5.json);
  }
  const source = files.gravity;
  if (source === undefined) return undefined;
  if ("path" in source) return readGravityDb(source.where, source.path);
  // node:sqlite opens files: the bytes go to a private temporary copy.
  const dir = await Deno.makeTempDir({ prefix: "kudurru-pihole-" });
  try {
    const file = join(dir, "gravity.db");
    await Deno.writeFile(file, source.bytes, { mode: 0o600 });
    return readGravityDb(source.where, file);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** v5's `custom.list` (hosts lines) and CNAME snippet (`cname=` lines). */
function v5RecordLines(text: Map<string, string>): RecordLine[] {
  const lines: RecordLine[] = [];
  (text.get("custom.list") ?? "").split(/\r?\n/).forEach((line, i) => {
    if (line.trim() !== "") {
      lines.push({ where: `custom.list:${i + 1}`, kind: "hosts", text: line });
    }
  });
  (text.get("05-pihole-custom-cname.conf") ?? "").split(/\r?\n/).forEach(
    (line, i) => {
      const m = /^\s*cname=(.*)$/.exec(line);
      if (m !== null) {
        lines.push({
          where: `05-pihole-custom-cname.conf:${i + 1}`,
          kind: "cname",
          text: m[1]!.trim(),
        });
      }
    },
  );
  return lines;
}

/** v5's `setupVars.conf`: `PIHOLE_DNS_n` are the upstreams; the rest is reported. */
function mapSetupVars(
  ctx: ImportContext,
  text: string | undefined,
  settings: Record<string, unknown>,
): void {
  if (text === undefined) return;
  const servers: string[] = [];
  const other: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([A-Z0-9_]+)=(.*)$/.exec(line);
    if (m === null) continue;
    const value = m[2]!.trim().replace(/^"|"$/g, "");
    if (/^PIHOLE_DNS_\d+$/.test(m[1]!) && value !== "") {
      const server = upstreamOf(value);
      if (server !== undefined && !servers.includes(server)) {
        servers.push(server);
      }
    } else other.push(m[1]!);
  }
  if (servers.length > 0 && settings.upstreams === undefined) {
    settings.upstreams = { groups: { default: { servers } } };
    ctx.mapped(
      "setupVars.conf",
      "PIHOLE_DNS_*",
      `upstreams.groups.default: ${servers.join(", ")}`,
    );
  }
  if (other.length > 0) {
    ctx.skipped(
      "setupVars.conf",
      other.join(", "),
      "v5 settings this importer does not read (Pi-hole v6 converts them into pihole.toml: import a v6 export for those)",
    );
  }
}
