/**
 * The tables of Pi-hole's gravity database that say who gets which lists:
 * `group`, `adlist`, `domainlist`, `client` and the `*_by_group` links
 * between them (Pi-hole's "Domain Database" and "Group Management" docs).
 * Read from a `gravity.db` (an installed one, or the reduced copy of a
 * Teleporter zip, which has no views, constraints or `info` table) or from
 * the JSON dumps of a v5 Teleporter archive. Columns are read by name: the
 * column order differs between Pi-hole's install schema and older
 * databases, and a Teleporter copy keeps whichever order it was made from.
 */
import { DatabaseSync } from "node:sqlite";
import { ImportError } from "./import_result.ts";

export interface GravityGroup {
  id: number;
  enabled: boolean;
  name: string;
  description?: string;
}

export interface GravityAdlist {
  id: number;
  /** 0 block list, 1 allow list (v6; v5 knows only block lists). */
  type: number;
  address: string;
  enabled: boolean;
  comment?: string;
}

export interface GravityDomain {
  id: number;
  /** 0 exact allow, 1 exact deny, 2 regex allow, 3 regex deny. */
  type: number;
  domain: string;
  enabled: boolean;
  comment?: string;
}

export interface GravityClient {
  id: number;
  ip: string;
  comment?: string;
}

/** The rows an import needs; the links map an item id to its group ids. */
export interface GravityTables {
  where: string;
  groups: GravityGroup[];
  adlists: GravityAdlist[];
  domains: GravityDomain[];
  clients: GravityClient[];
  adlistGroups: Map<number, number[]>;
  domainGroups: Map<number, number[]>;
  clientGroups: Map<number, number[]>;
}

type Row = Record<string, unknown>;

/** The tables without which a database is not Pi-hole's gravity database. */
const REQUIRED: Record<string, string[]> = {
  group: ["id", "enabled", "name"],
  adlist: ["id", "address", "enabled"],
  domainlist: ["id", "type", "domain", "enabled"],
};

/** Tables read when present (a v5 database has them too). */
const LINKS = {
  adlist_by_group: "adlist_id",
  domainlist_by_group: "domainlist_id",
  client_by_group: "client_id",
} as const;

/**
 * Reads a gravity database file (opened read-only).
 *
 * @throws {ImportError} when it is not SQLite or lacks Pi-hole's tables
 */
export function readGravityDb(where: string, file: string): GravityTables {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file, { readOnly: true });
  } catch (error) {
    throw new ImportError(`Cannot open ${where}: ${message(error)}`, {
      cause: error,
    });
  }
  try {
    let tables: Set<string>;
    try {
      tables = new Set(
        (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
          .all() as Row[]).map((r) => String(r.name)),
      );
    } catch (error) {
      throw new ImportError(
        `${where} is not an SQLite database, so not Pi-hole's gravity.db: ${
          message(error)
        }`,
        { cause: error },
      );
    }
    const rowsOf = (table: string): Row[] =>
      tables.has(table)
        ? db.prepare(`SELECT * FROM "${table}"`).all() as Row[]
        : [];
    const missing = Object.keys(REQUIRED).filter((t) => !tables.has(t));
    if (missing.length > 0) {
      throw new ImportError(
        `${where} is not Pi-hole's gravity database: it has no table ${
          missing.join(", ")
        } (its tables: ${[...tables].slice(0, 20).join(", ") || "none"})`,
      );
    }
    const raw: Record<string, Row[]> = {};
    for (
      const t of [...Object.keys(REQUIRED), "client", ...Object.keys(LINKS)]
    ) {
      raw[t] = rowsOf(t);
    }
    return tablesFrom(where, raw);
  } finally {
    db.close();
  }
}

/**
 * The v5 Teleporter's JSON dumps (`group.json`, `adlist.json`,
 * `whitelist.exact.json`…) as the same tables: each domain file carries one
 * `domainlist` type.
 */
export function gravityFromV5Json(
  where: string,
  files: Map<string, unknown>,
): GravityTables | undefined {
  const list = (name: string): Row[] => {
    const value = files.get(name);
    return Array.isArray(value)
      ? value.filter((r): r is Row => typeof r === "object" && r !== null)
      : [];
  };
  const domainFiles: [string, number][] = [
    ["whitelist.exact.json", 0],
    ["blacklist.exact.json", 1],
    ["whitelist.regex.json", 2],
    ["blacklist.regex.json", 3],
  ];
  if (![...files.keys()].some((k) => k.endsWith(".json"))) return undefined;
  const raw: Record<string, Row[]> = {
    group: list("group.json"),
    adlist: list("adlist.json").map((r) => ({ type: 0, ...r })),
    domainlist: domainFiles.flatMap(([file, type]) =>
      list(file).map((r) => ({ ...r, type }))
    ),
    client: list("client.json"),
    adlist_by_group: list("adlist_by_group.json"),
    domainlist_by_group: list("domainlist_by_group.json"),
    client_by_group: list("client_by_group.json"),
  };
  if (!raw.group!.some((g) => Number(g.id) === 0)) {
    // Every Pi-hole database has group 0; a v5 dump may leave it out.
    raw.group!.unshift({ id: 0, enabled: 1, name: "Default" });
  }
  return tablesFrom(where, raw);
}

function tablesFrom(where: string, raw: Record<string, Row[]>): GravityTables {
  const checkColumns = (table: string, rows: Row[]) => {
    const need = REQUIRED[table] ?? [];
    const row = rows[0];
    if (row === undefined) return;
    const absent = need.filter((c) => !(c in row));
    if (absent.length > 0) {
      throw new ImportError(
        `${where}: table ${table} has no column ${
          absent.join(", ")
        }, so it is not Pi-hole's gravity database (columns: ${
          Object.keys(row).join(", ")
        })`,
      );
    }
  };
  for (const table of Object.keys(REQUIRED)) checkColumns(table, raw[table]!);
  const links = (table: keyof typeof LINKS) => {
    const out = new Map<number, number[]>();
    for (const r of raw[table] ?? []) {
      const item = int(r[LINKS[table]]);
      const group = int(r.group_id);
      if (item === undefined || group === undefined) continue;
      const list = out.get(item) ?? [];
      if (!list.includes(group)) list.push(group);
      out.set(item, list);
    }
    return out;
  };
  return {
    where,
    groups: (raw.group ?? []).flatMap((r) => {
      const id = int(r.id);
      return id === undefined ? [] : [{
        id,
        enabled: truthy(r.enabled),
        name: String(r.name ?? `group ${id}`),
        ...optional("description", r.description),
      }];
    }),
    adlists: (raw.adlist ?? []).flatMap((r) => {
      const id = int(r.id);
      return id === undefined || typeof r.address !== "string" ? [] : [{
        id,
        type: int(r.type) ?? 0,
        address: r.address.trim(),
        enabled: truthy(r.enabled),
        ...optional("comment", r.comment),
      }];
    }),
    domains: (raw.domainlist ?? []).flatMap((r) => {
      const id = int(r.id);
      return id === undefined || typeof r.domain !== "string" ? [] : [{
        id,
        type: int(r.type) ?? -1,
        domain: r.domain.trim(),
        enabled: truthy(r.enabled),
        ...optional("comment", r.comment),
      }];
    }),
    clients: (raw.client ?? []).flatMap((r) => {
      const id = int(r.id);
      return id === undefined || typeof r.ip !== "string" ? [] : [{
        id,
        ip: r.ip.trim(),
        ...optional("comment", r.comment),
      }];
    }),
    adlistGroups: links("adlist_by_group"),
    domainGroups: links("domainlist_by_group"),
    clientGroups: links("client_by_group"),
  };
}

/** `{ key: text }` when the value is non-blank text, else `{}`. */
function optional(key: string, value: unknown): Record<string, string> {
  const t = text(value);
  return t === undefined ? {} : { [key]: t };
}

function int(value: unknown): number | undefined {
  const n = typeof value === "bigint" ? Number(value) : Number(value);
  return value !== null && value !== "" && Number.isInteger(n) ? n : undefined;
}

/** SQLite booleans are 0/1 integers; v5 JSON may have true/false or "1". */
function truthy(value: unknown): boolean {
  return value === true || value === 1 || value === "1" || value === 1n;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== ""
    ? value.trim()
    : undefined;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
