/**
 * What `kudurru import pihole PATH` reads PATH as: a directory holding
 * `pihole.toml` and `gravity.db` (as `/etc/pihole` does), a v6 Teleporter
 * zip (entries `etc/pihole/pihole.toml` and `etc/pihole/gravity.db`,
 * layout from pihole-FTL's `src/zip/teleporter.c`), a v5 Teleporter
 * `.tar.gz` (JSON dumps of the gravity tables, `custom.list`, the CNAME
 * snippet), or one `pihole.toml` or `gravity.db` on its own. Archives are
 * untrusted: the sizes and the entry count they may unpack to are bounded
 * before anything is inflated, so a zip bomb is refused, not unpacked.
 */
import { join } from "node:path";
import { Gunzip, unzipSync } from "fflate";
import { ImportError, type ReadFile } from "./import_result.ts";

/** Most bytes read from PATH, and unpacked from an archive (each entry and all). */
export const MAX_BYTES = 512 * 1024 * 1024;
/** Most entries an archive may list. */
export const MAX_ENTRIES = 10_000;

const TOML_ENTRY = "etc/pihole/pihole.toml";
const GRAVITY_ENTRY = "etc/pihole/gravity.db";

/** The Pi-hole files found at PATH. */
export interface PiholeFiles {
  /** What PATH was, for the report. */
  kind: string;
  toml?: { where: string; text: string };
  /** A database on disk (opened in place) or bytes to open from a copy. */
  gravity?: { where: string; path: string } | {
    where: string;
    bytes: Uint8Array;
  };
  /** v5 archive members by base name: parsed JSON and plain text. */
  v5?: { json: Map<string, unknown>; text: Map<string, string> };
  /** Entries carried but not read, for the report. */
  ignored: string[];
}

export async function readPiholeFiles(
  path: string,
  readFile: ReadFile,
): Promise<PiholeFiles> {
  const info = await Deno.stat(path).catch(() => undefined);
  if (info?.isDirectory) return await readDirectory(path, readFile);
  const bytes = await read(readFile, path);
  if (bytes.length > MAX_BYTES) {
    throw new ImportError(`${path} is larger than ${MAX_BYTES} bytes`);
  }
  if (
    startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) ||
    startsWith(bytes, [0x50, 0x4b, 0x05, 0x06])
  ) {
    return readZip(path, bytes);
  }
  if (startsWith(bytes, [0x1f, 0x8b])) return readTarGz(path, bytes);
  if (startsWith(bytes, [...new TextEncoder().encode("SQLite format 3\0")])) {
    return {
      kind: "gravity database",
      gravity: { where: path, bytes },
      ignored: [],
    };
  }
  if (bytes.includes(0)) {
    throw new ImportError(
      `${path} is not a Pi-hole Teleporter archive (zip or tar.gz), pihole.toml or gravity.db: it is binary data of another kind`,
    );
  }
  return {
    kind: "pihole.toml",
    toml: { where: path, text: new TextDecoder().decode(bytes) },
    ignored: [],
  };
}

async function readDirectory(
  dir: string,
  readFile: ReadFile,
): Promise<PiholeFiles> {
  const files: PiholeFiles = { kind: `directory ${dir}`, ignored: [] };
  const tomlPath = join(dir, "pihole.toml");
  const gravityPath = join(dir, "gravity.db");
  const toml = await readFile(tomlPath).catch(() => undefined);
  if (toml !== undefined) {
    files.toml = { where: tomlPath, text: new TextDecoder().decode(toml) };
  }
  if ((await Deno.stat(gravityPath).catch(() => undefined))?.isFile) {
    files.gravity = { where: gravityPath, path: gravityPath };
  }
  if (files.toml === undefined && files.gravity === undefined) {
    throw new ImportError(
      `${dir} holds neither pihole.toml nor gravity.db, so it is not a Pi-hole configuration directory such as /etc/pihole`,
    );
  }
  return files;
}

function readZip(path: string, bytes: Uint8Array): PiholeFiles {
  let entries = 0;
  let total = 0;
  const names: string[] = [];
  let unpacked: Record<string, Uint8Array>;
  try {
    unpacked = unzipSync(bytes, {
      filter(file) {
        entries++;
        names.push(file.name);
        if (entries > MAX_ENTRIES) {
          throw new ImportError(`${path}: more than ${MAX_ENTRIES} entries`);
        }
        const wanted = file.name === TOML_ENTRY || file.name === GRAVITY_ENTRY;
        if (!wanted) return false;
        if (
          file.originalSize > MAX_BYTES || total + file.originalSize > MAX_BYTES
        ) {
          throw new ImportError(
            `${path}: entry ${file.name} would unpack to ${file.originalSize} bytes, more than the ${MAX_BYTES} accepted`,
          );
        }
        total += file.originalSize;
        return true;
      },
    });
  } catch (error) {
    if (error instanceof ImportError) throw error;
    throw new ImportError(
      `${path} is not a readable zip (truncated or damaged): ${message(error)}`,
      { cause: error },
    );
  }
  const toml = unpacked[TOML_ENTRY];
  const gravity = unpacked[GRAVITY_ENTRY];
  if (toml === undefined && gravity === undefined) {
    throw new ImportError(
      `${path} is a zip but not a Pi-hole Teleporter export: it has no ${TOML_ENTRY} or ${GRAVITY_ENTRY} (entries: ${
        names.slice(0, 10).join(", ") || "none"
      })`,
    );
  }
  return {
    kind: "Teleporter zip",
    ...(toml !== undefined && {
      toml: {
        where: `${path}:${TOML_ENTRY}`,
        text: new TextDecoder().decode(toml),
      },
    }),
    ...(gravity !== undefined && {
      gravity: { where: `${path}:${GRAVITY_ENTRY}`, bytes: gravity },
    }),
    ignored: names.filter((n) =>
      n !== TOML_ENTRY && n !== GRAVITY_ENTRY && !n.endsWith("/")
    ),
  };
}

/** v5 members read; the rest are reported. */
const V5_TEXT = new Set([
  "custom.list",
  "05-pihole-custom-cname.conf",
  "setupVars.conf",
]);

function readTarGz(path: string, bytes: Uint8Array): PiholeFiles {
  const tar = gunzipBounded(path, bytes);
  const json = new Map<string, unknown>();
  const text = new Map<string, string>();
  const ignored: string[] = [];
  let entries = 0;
  for (const member of tarMembers(path, tar)) {
    if (++entries > MAX_ENTRIES) {
      throw new ImportError(`${path}: more than ${MAX_ENTRIES} entries`);
    }
    const base = member.name.split("/").at(-1) ?? "";
    if (base.endsWith(".json")) {
      try {
        json.set(base, JSON.parse(new TextDecoder().decode(member.data)));
      } catch (error) {
        throw new ImportError(
          `${path}: ${member.name} is not JSON: ${message(error)}`,
        );
      }
    } else if (V5_TEXT.has(base)) {
      text.set(base, new TextDecoder().decode(member.data));
    } else if (base !== "") {
      ignored.push(member.name);
    }
  }
  if (
    ![...json.keys()].some((k) =>
      k === "group.json" || k === "adlist.json" || k.endsWith("list.exact.json")
    ) && text.size === 0
  ) {
    throw new ImportError(
      `${path} is a tar.gz but not a Pi-hole v5 Teleporter export: it has no group.json, adlist.json, *list.exact.json or custom.list`,
    );
  }
  return { kind: "v5 Teleporter tar.gz", v5: { json, text }, ignored };
}

/** gunzip, refusing output past {@linkcode MAX_BYTES} as it streams. */
function gunzipBounded(path: string, bytes: Uint8Array): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    const gunzip = new Gunzip((chunk) => {
      total += chunk.length;
      if (total > MAX_BYTES) {
        throw new ImportError(
          `${path} unpacks to more than ${MAX_BYTES} bytes`,
        );
      }
      chunks.push(chunk);
    });
    gunzip.push(bytes, true);
  } catch (error) {
    if (error instanceof ImportError) throw error;
    throw new ImportError(
      `${path} is not readable gzip data: ${message(error)}`,
      {
        cause: error,
      },
    );
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Regular files of a ustar/GNU tar, with GNU long names. */
function* tarMembers(
  path: string,
  tar: Uint8Array,
): Generator<{ name: string; data: Uint8Array }> {
  const decoder = new TextDecoder();
  const field = (block: Uint8Array, start: number, length: number) => {
    const raw = block.subarray(start, start + length);
    const end = raw.indexOf(0);
    return decoder.decode(end < 0 ? raw : raw.subarray(0, end));
  };
  let offset = 0;
  let longName: string | undefined;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) return;
    const sizeText = field(header, 124, 12).trim();
    if (!/^[0-7]*$/.test(sizeText)) {
      throw new ImportError(
        `${path}: not a tar archive (bad header at ${offset})`,
      );
    }
    const size = sizeText === "" ? 0 : parseInt(sizeText, 8);
    const type = String.fromCharCode(header[156]!);
    const start = offset + 512;
    if (start + size > tar.length) {
      throw new ImportError(`${path}: the tar archive is truncated`);
    }
    const data = tar.subarray(start, start + size);
    offset = start + Math.ceil(size / 512) * 512;
    if (type === "L") {
      longName = field(data, 0, data.length);
      continue;
    }
    const prefix = field(header, 345, 155);
    const name = longName ??
      (prefix === ""
        ? field(header, 0, 100)
        : `${prefix}/${field(header, 0, 100)}`);
    longName = undefined;
    if (type === "0" || type === "\0") yield { name, data };
  }
}

async function read(readFile: ReadFile, path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new ImportError(`Cannot read ${path}: ${message(error)}`, {
      cause: error,
    });
  }
}

function startsWith(bytes: Uint8Array, magic: number[]): boolean {
  return magic.every((b, i) => bytes[i] === b);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
