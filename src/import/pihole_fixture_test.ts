/**
 * Pi-hole inputs for the importer's tests, built from Pi-hole's own files:
 * the `pihole.toml` pihole-FTL wrote for its test suite, and a gravity.db
 * made by node:sqlite from FTL's test database SQL (schema and rows; the
 * SQL has no sqlite3 shell dot-commands). The Teleporter zip is laid out
 * as pihole-FTL's `generate_teleporter_zip()` writes it.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { zipSync } from "fflate";

const PIHOLE = new URL(
  "../../../shared/data/imports/pihole/",
  import.meta.url,
);
export const TOML_PATH = new URL("pihole.toml", PIHOLE).pathname;
export const GRAVITY_SQL_PATH =
  new URL("gravity.FTL-test.sql", PIHOLE).pathname;

/** A directory like /etc/pihole: the real pihole.toml and a gravity.db. */
export async function piholeDir(
  extraSql = "",
): Promise<{ dir: string; [Symbol.asyncDispose](): Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-pihole-test-" });
  await Deno.copyFile(TOML_PATH, join(dir, "pihole.toml"));
  const db = new DatabaseSync(join(dir, "gravity.db"));
  try {
    db.exec(await Deno.readTextFile(GRAVITY_SQL_PATH));
    if (extraSql !== "") db.exec(extraSql);
  } finally {
    db.close();
  }
  return {
    dir,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** A v6 Teleporter zip of the directory's two files plus the other entries FTL writes. */
export async function teleporterZip(dir: string): Promise<Uint8Array> {
  const comment = (text: string) => ({ comment: text });
  return zipSync({
    "etc/pihole/pihole.toml": [
      await Deno.readFile(join(dir, "pihole.toml")),
      comment("Pi-hole's configuration"),
    ],
    "etc/hosts": [
      new TextEncoder().encode("127.0.0.1 localhost\n"),
      comment("System's HOSTS file"),
    ],
    "etc/pihole/gravity.db": [
      await Deno.readFile(join(dir, "gravity.db")),
      comment("Pi-hole's gravity database"),
    ],
  });
}
