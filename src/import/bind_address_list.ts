/**
 * The two kinds of list named.conf uses for peers, read into what kudurru's
 * objects hold (BIND 9 Administrator Reference Manual, "Address Match
 * Lists" and the `forwarders` / `primaries` / `also-notify` grammar):
 *
 * - an address match list (`allow-transfer`, `allow-query`, `acl`):
 *   addresses, prefixes, `!` negation, `key NAME`, `any`, `none`,
 *   `localhost`, named `acl`s and nested lists, first match wins; it becomes
 *   a kudurru ACL (ordered, first match wins, no match denies) plus keys;
 * - a server list (`forwarders`, `primaries`, `also-notify`): `address
 *   [port P] [key K] [tls T]`, with a list-wide `port` before the braces
 *   and, for primaries, names of top-level `primaries` lists.
 */
import { isCidr, isIpAddress } from "../dns/ip_text.ts";
import {
  type ConfBlock,
  type ConfStatement,
  isBlock,
  wordsOf,
} from "./bind_conf_parse.ts";

/** An address match list, as kudurru can hold it. */
export interface MatchList {
  /** ACL entries in order: "10.0.0.0/8", "!10.0.0.2", "::/0". */
  entries: string[];
  /** Names of `key` elements (TSIG key names as written). */
  keys: string[];
  /** The list is exactly `any`. */
  any: boolean;
  /** The list is exactly `none` (or empty). */
  none: boolean;
  /** Elements that have no counterpart, described. */
  problems: string[];
}

/** How deep named `acl`s may refer to one another. */
const MAX_ACL_DEPTH = 16;

/** Completes BIND's short IPv4 prefixes: `10/8` is `10.0.0.0/8`. */
function fullPrefix(text: string): string {
  const m = /^(\d{1,3}(?:\.\d{1,3}){0,2})\/(\d{1,2})$/.exec(text);
  if (m === null) return text;
  const parts = m[1]!.split(".");
  while (parts.length < 4) parts.push("0");
  return `${parts.join(".")}/${m[2]}`;
}

/**
 * Reads an address match list; `acls` are the top-level `acl` statements by
 * name (lowercase).
 */
export function readMatchList(
  block: ConfBlock,
  acls: ReadonlyMap<string, ConfBlock>,
): MatchList {
  const out: MatchList = {
    entries: [],
    keys: [],
    any: false,
    none: false,
    problems: [],
  };
  const elements = collect(block, acls, out, false, 0, []);
  if (elements === "any") out.any = true;
  else if (elements === "none") out.none = true;
  return out;
}

/** Adds a list's elements; returns "any"/"none" when that is all it is. */
function collect(
  block: ConfBlock,
  acls: ReadonlyMap<string, ConfBlock>,
  out: MatchList,
  negated: boolean,
  depth: number,
  seen: string[],
): "any" | "none" | "mixed" {
  const statements = block.statements;
  if (statements.length === 0) return "none";
  const sole = statements.length === 1 ? soleWord(statements[0]!) : undefined;
  if (!negated && out.entries.length === 0 && out.keys.length === 0) {
    if (sole === "any") return "any";
    if (sole === "none") return "none";
  }
  for (const st of statements) element(st, acls, out, negated, depth, seen);
  return "mixed";
}

function soleWord(st: ConfStatement): string | undefined {
  const words = wordsOf(st);
  return words.length === 1 && st.items.length === 1
    ? words[0]!.toLowerCase()
    : undefined;
}

function element(
  st: ConfStatement,
  acls: ReadonlyMap<string, ConfBlock>,
  out: MatchList,
  negatedOuter: boolean,
  depth: number,
  seen: string[],
): void {
  let words = wordsOf(st);
  let negated = negatedOuter;
  if (words[0] === "!") {
    negated = !negated;
    words = words.slice(1);
  } else if (words[0]?.startsWith("!")) {
    negated = !negated;
    words = [words[0].slice(1), ...words.slice(1)];
  }
  const inner = st.items.find(isBlock);
  if (inner !== undefined && words.length === 0) {
    // A nested list keeps its own order; a negated one is beyond an ACL.
    if (negated) out.problems.push("a negated nested list");
    else collect(inner, acls, out, false, depth, seen);
    return;
  }
  const [first = "", second] = words;
  const word = first.toLowerCase();
  const bang = negated ? "!" : "";
  if (word === "key" && second !== undefined) {
    if (negated) out.problems.push(`!key ${second}`);
    else out.keys.push(second);
    return;
  }
  if (word === "any") {
    out.entries.push(`${bang}0.0.0.0/0`, `${bang}::/0`);
    return;
  }
  if (word === "none") {
    // `!none` matches everything; `none` matches nothing and adds no entry.
    if (negated) out.entries.push("0.0.0.0/0", "::/0");
    return;
  }
  if (word === "localhost") {
    // BIND's localhost is every address of the host; loopback is the part
    // a copied config can name.
    out.entries.push(`${bang}127.0.0.1`, `${bang}::1`);
    out.problems.push(
      "localhost read as 127.0.0.1 and ::1 (BIND also counts the host's other addresses)",
    );
    return;
  }
  if (word === "localnets") {
    out.problems.push(
      "localnets (the host's own networks: name them as prefixes)",
    );
    return;
  }
  const prefix = fullPrefix(first);
  if (isIpAddress(prefix) || isCidr(prefix)) {
    out.entries.push(`${bang}${prefix}`);
    return;
  }
  const acl = acls.get(word);
  if (acl !== undefined && words.length === 1) {
    if (seen.includes(word) || depth >= MAX_ACL_DEPTH) {
      out.problems.push(`acl ${first} refers to itself`);
      return;
    }
    if (negated) {
      out.problems.push(`!${first} (a negated acl)`);
      return;
    }
    collect(acl, acls, out, false, depth + 1, [...seen, word]);
    return;
  }
  out.problems.push(
    `"${words.join(" ")}" (${
      words.length === 1 ? "not an address or a known acl" : "not understood"
    })`,
  );
}

/** One server of a `forwarders`, `primaries` or `also-notify` list. */
export interface ListedServer {
  address: string;
  port: number;
  key?: string;
  tls?: string;
  line: number;
}

/** A server list read; `problems` describes what was left out. */
export interface ServerList {
  servers: ListedServer[];
  problems: string[];
}

/**
 * Reads the server list of statement `st` (`forwarders [port P] { … }`);
 * `named` are the top-level `primaries`/`masters` lists by name.
 */
export function readServerList(
  st: ConfStatement,
  named: ReadonlyMap<string, ConfStatement> = new Map(),
  depth = 0,
): ServerList {
  const out: ServerList = { servers: [], problems: [] };
  // A top-level `primaries NAME { … }` (depth > 0 here) has its name first.
  const head = wordsOf(st).slice(depth > 0 ? 2 : 1);
  let listPort = 53;
  for (let i = 0; i < head.length; i++) {
    if (head[i]!.toLowerCase() === "port" && head[i + 1] !== undefined) {
      listPort = Number(head[++i]);
    } else out.problems.push(`"${head[i]}" before the list`);
  }
  const block = st.items.find(isBlock);
  for (const item of block?.statements ?? []) {
    const words = wordsOf(item);
    const [address = "", ...rest] = words;
    if (!isIpAddress(address)) {
      const list = named.get(address.toLowerCase());
      if (list !== undefined && rest.length === 0 && depth < MAX_ACL_DEPTH) {
        const inner = readServerList(list, named, depth + 1);
        out.servers.push(...inner.servers);
        out.problems.push(...inner.problems);
      } else {
        out.problems.push(`"${words.join(" ")}" is not an address`);
      }
      continue;
    }
    const server: ListedServer = { address, port: listPort, line: item.line };
    let ok = true;
    for (let i = 0; i < rest.length; i += 2) {
      const option = rest[i]!.toLowerCase();
      const value = rest[i + 1];
      if (value === undefined) {
        out.problems.push(`${address}: "${rest[i]}" without a value`);
        ok = false;
      } else if (option === "port") {
        const port = Number(value);
        if (!Number.isInteger(port) || port < 1 || port > 65535) {
          out.problems.push(`${address}: port "${value}" is not a port`);
          ok = false;
        } else server.port = port;
      } else if (option === "key") server.key = value;
      else if (option === "tls") server.tls = value;
      else {
        out.problems.push(`${address}: "${rest[i]} ${value}" not understood`);
        ok = false;
      }
    }
    if (
      !Number.isInteger(server.port) || server.port < 1 || server.port > 65535
    ) {
      out.problems.push(`${address}: the list's port is not a port`);
      ok = false;
    }
    if (ok) out.servers.push(server);
  }
  return out;
}

/** `address` or `address:port` (IPv6 in brackets); port 53 left out when `bare53`. */
export function hostPort(
  address: string,
  port: number,
  bare53: boolean,
): string {
  if (bare53 && port === 53) return address;
  return address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
}
