/**
 * The backup archive: a zip holding manifest.json, a consistent copy of
 * state.db, the keys/ directory and optionally querylog.db. The manifest
 * names the kudurru that wrote it, the schema version of each database and
 * the SHA-256 of every file, so a damaged or foreign archive is refused
 * before anything is written.
 */
import { unzipSync, zipSync } from "fflate";
import { VERSION } from "../version.ts";
import { messageOf } from "../server/disk_errors.ts";

export const MANIFEST_FILE = "manifest.json";
const KIND = "kudurru-backup";
const FORMAT_VERSION = 1;

/** One file of the archive, by its path in the data directory. */
export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
  /** For a database: the schema version of the copy. */
  schemaVersion?: number;
}

export interface Manifest {
  kind: typeof KIND;
  formatVersion: number;
  kudurruVersion: string;
  createdAt: string;
  /** The node the backup was made on. */
  node: string;
  files: ManifestFile[];
}

/** A file to pack: its data-directory path, bytes and schema version. */
export interface PackedFile {
  path: string;
  bytes: Uint8Array;
  schemaVersion?: number;
}

/** True when `bytes` start as a zip does ("PK\x03\x04"). */
export function looksLikeArchive(bytes: Uint8Array): boolean {
  return bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 &&
    bytes[3] === 0x04;
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    bytes as Uint8Array<ArrayBuffer>,
  );
  return Array.from(
    new Uint8Array(digest),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/** The archive of `files`, with their manifest. */
export async function packBackup(
  files: readonly PackedFile[],
  facts: { node: string; createdAt: Date },
): Promise<{ archive: Uint8Array; manifest: Manifest }> {
  const manifest: Manifest = {
    kind: KIND,
    formatVersion: FORMAT_VERSION,
    kudurruVersion: VERSION,
    createdAt: facts.createdAt.toISOString(),
    node: facts.node,
    files: await Promise.all(files.map(async (f) => ({
      path: f.path,
      size: f.bytes.length,
      sha256: await sha256Hex(f.bytes),
      ...(f.schemaVersion !== undefined &&
        { schemaVersion: f.schemaVersion }),
    }))),
  };
  const entries: Record<string, Uint8Array> = {
    [MANIFEST_FILE]: new TextEncoder().encode(
      JSON.stringify(manifest, null, 2) + "\n",
    ),
  };
  for (const f of files) entries[f.path] = f.bytes;
  return { archive: zipSync(entries, { level: 6 }), manifest };
}

/** An archive that is not a usable kudurru backup; the message says why. */
export class BackupError extends Error {
  override name = "BackupError";
}

/**
 * The manifest and files of `archive`, every file checked against its
 * SHA-256. `name` is how errors call the archive.
 *
 * @throws {BackupError} for a file that is not a kudurru backup, a damaged
 *   one (naming the file that does not match), or one from a newer format
 */
export async function unpackBackup(
  archive: Uint8Array,
  name: string,
): Promise<{ manifest: Manifest; files: Map<string, Uint8Array> }> {
  const refuse = (why: string) =>
    new BackupError(`Cannot restore ${name}: ${why}`);
  if (!looksLikeArchive(archive)) {
    throw refuse(
      "it is not a kudurru backup (neither a backup archive nor an export)",
    );
  }
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(archive);
  } catch (err) {
    throw refuse(`the archive is damaged (${messageOf(err)})`);
  }
  const manifestBytes = entries[MANIFEST_FILE];
  if (manifestBytes === undefined) {
    throw refuse(
      `it is a zip archive without ${MANIFEST_FILE}: not a kudurru backup`,
    );
  }
  const manifest = parseManifest(manifestBytes, refuse);
  const files = new Map<string, Uint8Array>();
  for (const f of manifest.files) {
    const bytes = entries[f.path];
    if (bytes === undefined) {
      throw refuse(
        `${f.path} is listed in ${MANIFEST_FILE} but not in the archive`,
      );
    }
    if (bytes.length !== f.size || await sha256Hex(bytes) !== f.sha256) {
      throw refuse(
        `${f.path} in it is damaged: it does not match its SHA-256 in ${MANIFEST_FILE}; use another backup`,
      );
    }
    files.set(f.path, bytes);
  }
  return { manifest, files };
}

function parseManifest(
  bytes: Uint8Array,
  refuse: (why: string) => BackupError,
): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (err) {
    throw refuse(`its ${MANIFEST_FILE} is damaged (${messageOf(err)})`);
  }
  const m = value as Partial<Manifest> | null;
  if (m?.kind !== KIND) {
    throw refuse(`its ${MANIFEST_FILE} is not a kudurru backup's`);
  }
  if (typeof m.formatVersion !== "number" || m.formatVersion > FORMAT_VERSION) {
    throw refuse(
      `it was written by a newer kudurru (${
        m.kudurruVersion ?? "unknown version"
      }, backup format ${m.formatVersion}): restore it with that kudurru`,
    );
  }
  if (!Array.isArray(m.files) || !m.files.every(isManifestFile)) {
    throw refuse(`its ${MANIFEST_FILE} lists its files wrongly`);
  }
  return m as Manifest;
}

function isManifestFile(f: unknown): f is ManifestFile {
  const file = f as Partial<ManifestFile> | null;
  return typeof file?.path === "string" && restorable(file.path) &&
    typeof file.size === "number" && typeof file.sha256 === "string" &&
    (file.schemaVersion === undefined ||
      typeof file.schemaVersion === "number");
}

/** The files a backup holds: the two databases and what is under keys/. */
export const DATABASE_FILES = ["state.db", "querylog.db"] as const;

/**
 * A path a backup may restore: a database, or a file under keys/ that
 * stays there (no "..", no absolute path, no empty segment).
 */
export function restorable(path: string): boolean {
  if ((DATABASE_FILES as readonly string[]).includes(path)) return true;
  return path.startsWith("keys/") &&
    path.split("/").every((s) => s !== "" && s !== "." && s !== "..") &&
    !path.includes("\\") && !path.includes("\0");
}
