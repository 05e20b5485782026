/**
 * `kudurru import bind PATH`: a BIND named.conf, and the zone files it
 * names, as kudurru objects (src/import/import_result.ts). Statements are
 * read by BIND 9's Administrator Reference Manual:
 *
 * - `zone { type primary|master; file; }` → a primary DNSZone (SOA and apex
 *   NS from the file) plus DNSRecordSets with the file's other RRsets;
 * - `type forward` + `forwarders` → a forward DNSZone and an upstream group
 *   in `settings.upstreams.groups` (`forward first` is reported: a kudurru
 *   forward zone never falls back to resolution);
 * - `type secondary|slave` + `primaries|masters` → a secondary DNSZone;
 * - `allow-query`, `allow-transfer` (with `acl`s expanded and `key`
 *   elements as TSIG key references), `also-notify`, `notify` → the zone's
 *   `policy`, zone values over `options` ones;
 * - `key` → not an object: kudurru keeps TSIG keys as files
 *   (docs/design.md "TSIG keys"), so the report says where to put each one,
 *   never its secret;
 * - `options { forwarders }` → the `default` upstream group.
 *
 * Everything else (views after the first, hint/stub/mirror zones, listener
 * and logging options, controls…) is reported as skipped with the reason.
 * A missing zone file skips its zone (an empty primary would answer
 * NXDOMAIN for every name in it) and the import goes on.
 */
import { dirname, isAbsolute, join, relative } from "node:path";
import type { DNSZoneSpec } from "../api/v1alpha1/dnszone.ts";
import { API_VERSION, type KObject } from "../api/v1alpha1/meta.ts";
import { checkDomainName, normalizeName, toFqdn } from "../dns/name.ts";
import { TSIG_ALGORITHMS } from "../dns/tsig/tsig.ts";
import { TSIG_KEY_DIR } from "../transfer/tsig_key_files.ts";
import { hostPort, readServerList } from "./bind_address_list.ts";
import { ConfSyntaxError } from "./bind_conf_lex.ts";
import {
  allWordsOf,
  blockOf,
  type ConfBlock,
  type ConfStatement,
  keywordOf,
  parseConf,
  wordsOf,
} from "./bind_conf_parse.ts";
import { tsigKeyRef, UniqueNames, zoneObjectBase } from "./bind_names.ts";
import { zonePolicy } from "./bind_zone_policy.ts";
import {
  entryTexts,
  refusedLines,
  ZoneFileImporter,
  type ZoneFileLimits,
  ZoneFileTooLarge,
} from "./bind_zone_file.ts";
import { ZoneLexer } from "../zone/zone_file_lex.ts";
import { ZoneFileLimitError } from "../zone/zone_file_parse.ts";
import { recordSetSpecs } from "./bind_rrset_table.ts";
import {
  ImportError,
  type ImportNote,
  type ImportResult,
  type ReadFile,
} from "./import_result.ts";

/** The namespace imported record sets go into. */
const NAMESPACE = "default";
/**
 * The zone file limits of an import. The API's upload limits
 * (zone_file_parse.ts: 4 MiB, 100,000 records) keep one request from
 * holding a server's memory; an import reads a file the operator named on
 * their own machine, where a zone of a million records is an ordinary
 * thing to move. These bound only what one process can hold.
 */
export const ZONE_FILE_LIMITS: ZoneFileLimits = {
  maxBytes: 256 * 1024 * 1024,
  maxRecords: 5_000_000,
};
/** How deep `include` statements may nest. */
const MAX_INCLUDE_DEPTH = 8;

/** Statements that only a named.conf has: one of them makes the file one. */
const CONF_STATEMENTS = new Set([
  "acl",
  "controls",
  "dnssec-policy",
  "dyndb",
  "http",
  "include",
  "key",
  "key-store",
  "logging",
  "managed-keys",
  "masters",
  "options",
  "parental-agents",
  "plugin",
  "primaries",
  "server",
  "statistics-channels",
  "tls",
  "trust-anchors",
  "trusted-keys",
  "view",
  "zone",
]);

/**
 * The placeholders of BIND's system-test templates (`named.conf.in`) and
 * what they are read as: the DNS port, and the harness's default HMAC
 * (bin/tests/system/conf.sh.common). Others stay as written.
 */
const PLACEHOLDERS: Record<string, string> = {
  "@PORT@": "53",
  "@DEFAULT_HMAC@": "hmac-sha256",
};

/** Zone options that become policy or spec fields (the rest is reported). */
const ZONE_OPTIONS_READ = new Set([
  "type",
  "file",
  "forward",
  "forwarders",
  "primaries",
  "masters",
  "allow-query",
  "allow-transfer",
  "also-notify",
  "notify",
  "allow-update",
]);

/**
 * Reads named.conf at `path` and the zone files it names: each zone file
 * from disk a chunk at a time, or whole through `readFile` when one is
 * given (tests).
 */
export async function importBind(
  path: string,
  readFile?: ReadFile,
): Promise<ImportResult> {
  return await new BindImport(path, readFile).run();
}

/** Zone settings that `options` gives every zone that does not set its own. */
interface ZoneDefaults {
  [option: string]: ConfStatement;
}

class BindImport {
  readonly objects: KObject[] = [];
  readonly mapped: ImportNote[] = [];
  readonly skipped: ImportNote[] = [];
  readonly groups: Record<string, { servers: string[] }> = {};
  readonly #confDir: string;
  #directory: string;
  readonly #names = new UniqueNames();
  readonly #groupNames = new UniqueNames();
  readonly #acls = new Map<string, ConfBlock>();
  readonly #primaryLists = new Map<string, ConfStatement>();
  readonly #keys = new Map<string, { ref: string; algorithm: string }>();
  readonly #zones = new Set<string>();
  readonly #defaults: ZoneDefaults = {};

  /** Zone files are read from disk in chunks (no ReadFile was given). */
  readonly #streamed: boolean;
  readonly readFile: ReadFile;

  constructor(readonly path: string, readFile: ReadFile | undefined) {
    this.readFile = readFile ?? Deno.readFile;
    this.#streamed = readFile === undefined;
    this.#confDir = dirname(path);
    this.#directory = this.#confDir;
    this.#groupNames.take("default");
  }

  async run(): Promise<ImportResult> {
    const statements = await this.#readConf(this.path, 0);
    if (statements === undefined) {
      throw new ImportError(`Cannot read ${this.path}`);
    }
    if (!statements.some((st) => CONF_STATEMENTS.has(keywordOf(st)))) {
      throw new ImportError(
        `${this.path} is not a BIND named.conf: it has no options, zone, key, acl or view statement`,
      );
    }
    // Definitions first: a zone may name an acl, key or primaries list
    // written below it.
    for (const st of statements) this.#definition(st);
    for (const st of statements) await this.#statement(st);
    const settings: Record<string, unknown> = {};
    if (Object.keys(this.groups).length > 0) {
      settings.upstreams = { groups: this.groups };
    }
    return {
      objects: this.objects,
      settings,
      report: { mapped: this.mapped, skipped: this.skipped },
    };
  }

  /** The file's name in the report: relative to named.conf's directory. */
  #label(file: string): string {
    const rel = relative(this.#confDir, file);
    return rel === "" || rel.startsWith("..") ? file : rel;
  }

  #where(st: ConfStatement): string {
    return `${this.#label(st.file)}:${st.line}`;
  }

  #skip(st: ConfStatement, what: string, detail: string): void {
    this.skipped.push({ where: this.#where(st), what, detail });
  }

  #map(st: ConfStatement, what: string, detail: string): void {
    this.mapped.push({ where: this.#where(st), what, detail });
  }

  /** The statements of a named.conf file with its `include`s read in. */
  async #readConf(
    file: string,
    depth: number,
    from?: ConfStatement,
  ): Promise<ConfStatement[] | undefined> {
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(
        await this.readFile(file),
      );
    } catch (error) {
      if (from === undefined) {
        throw new ImportError(
          `Cannot read ${file}: ${(error as Error).message}`,
        );
      }
      this.#skip(from, `include "${file}"`, missingOrUnreadable(error));
      return undefined;
    }
    text = this.#substitute(text, file);
    let statements: ConfStatement[];
    try {
      statements = parseConf(text, this.#label(file));
    } catch (error) {
      if (!(error instanceof ConfSyntaxError)) throw error;
      if (from === undefined) {
        throw new ImportError(
          `${file} is not a named.conf that BIND reads: ${error.message}`,
        );
      }
      this.#skip(from, `include "${file}"`, `not read: ${error.message}`);
      return undefined;
    }
    // parseConf names files by their label; keep the real path for includes.
    const out: ConfStatement[] = [];
    for (const st of statements) {
      if (keywordOf(st) !== "include") {
        out.push(st);
        continue;
      }
      const target = wordsOf(st)[1];
      if (target === undefined) {
        this.#skip(st, "include", "names no file");
        continue;
      }
      if (depth >= MAX_INCLUDE_DEPTH) {
        this.#skip(st, `include "${target}"`, "includes nest too deeply");
        continue;
      }
      // named reads includes relative to its working directory, which is
      // where the named.conf is when it is started beside it.
      const included = isAbsolute(target)
        ? target
        : join(this.#confDir, target);
      const inner = await this.#readConf(included, depth + 1, st);
      if (inner === undefined) continue;
      this.#map(st, `include "${target}"`, `read (${inner.length} statements)`);
      out.push(...inner);
    }
    return out;
  }

  /** Replaces the test-harness placeholders, saying so in the report. */
  #substitute(text: string, file: string): string {
    for (const [placeholder, value] of Object.entries(PLACEHOLDERS)) {
      const count = text.split(placeholder).length - 1;
      if (count === 0) continue;
      text = text.replaceAll(placeholder, value);
      this.mapped.push({
        where: this.#label(file),
        what:
          `${placeholder} (a BIND system-test template placeholder, ${count}×)`,
        detail: `read as ${value}`,
      });
    }
    return text;
  }

  /** Collects acl, key, primaries lists and options ahead of the zones. */
  #definition(st: ConfStatement): void {
    const words = wordsOf(st);
    const block = blockOf(st);
    switch (keywordOf(st)) {
      case "acl":
        if (words[1] !== undefined && block !== undefined) {
          this.#acls.set(words[1].toLowerCase(), block);
        }
        return;
      case "primaries":
      case "masters":
        if (words[1] !== undefined && block !== undefined) {
          this.#primaryLists.set(words[1].toLowerCase(), st);
        }
        return;
      case "key":
        if (words[1] !== undefined) {
          const algorithm = block?.statements.find((s) =>
            keywordOf(s) === "algorithm"
          );
          this.#keys.set(normalizeName(toFqdn(words[1])), {
            ref: tsigKeyRef(words[1]),
            algorithm: algorithm ? (wordsOf(algorithm)[1] ?? "") : "",
          });
        }
        return;
      case "options":
        for (const option of block?.statements ?? []) {
          const name = keywordOf(option);
          if (name === "directory" && wordsOf(option)[1] !== undefined) {
            const dir = wordsOf(option)[1]!;
            this.#directory = isAbsolute(dir) ? dir : join(this.#confDir, dir);
          }
        }
        return;
    }
  }

  async #statement(st: ConfStatement): Promise<void> {
    const keyword = keywordOf(st);
    const words = wordsOf(st);
    switch (keyword) {
      case "options":
        return this.#options(st);
      case "zone":
        return await this.#zone(st);
      case "view":
        return await this.#view(st);
      case "key":
        return this.#key(st);
      case "acl":
        this.#map(
          st,
          `acl ${words[1] ?? ""}`,
          "expanded inline where a zone's allow-query or allow-transfer names it",
        );
        return;
      case "primaries":
      case "masters":
        this.#map(
          st,
          `${keyword} ${words[1] ?? ""}`,
          "expanded inline where a secondary zone names it",
        );
        return;
      case "controls":
        this.#skip(
          st,
          "controls",
          "rndc control channel: kudurru is driven by its API and CLI",
        );
        return;
      case "logging":
        this.#skip(
          st,
          "logging",
          "kudurru's logs are set in kudurru.yaml (log)",
        );
        return;
      case "statistics-channels":
        this.#skip(
          st,
          "statistics-channels",
          "kudurru serves metrics on listeners.metrics",
        );
        return;
      case "trust-anchors":
      case "managed-keys":
      case "trusted-keys":
        this.#skip(
          st,
          keyword,
          "DNSSEC trust anchors: kudurru forwards and does not validate from the root",
        );
        return;
      default:
        this.#skip(
          st,
          words.join(" ") || keyword,
          CONF_STATEMENTS.has(keyword)
            ? "no counterpart in kudurru"
            : "not a named.conf statement kudurru knows",
        );
    }
  }

  #options(st: ConfStatement): void {
    for (const option of blockOf(st)?.statements ?? []) {
      const name = keywordOf(option);
      const what = `options { ${allWordsOf(option).join(" ")} }`;
      switch (name) {
        case "directory":
          this.#map(
            option,
            what,
            `zone files are read from ${this.#label(this.#directory) || "."}`,
          );
          break;
        case "forwarders": {
          const list = readServerList(option);
          for (const p of list.problems) {
            this.#skip(option, what, `left out: ${p}`);
          }
          if (list.servers.length === 0) {
            this.#skip(option, what, "no forwarder to import");
            break;
          }
          this.groups.default = {
            servers: list.servers.map((s) =>
              hostPort(s.address, s.port, false)
            ),
          };
          this.#map(
            option,
            "options { forwarders }",
            "upstreams.groups.default",
          );
          break;
        }
        case "forward":
          this.#skip(
            option,
            what,
            "kudurru always forwards what it does not serve (forward only); there is no recursion to fall back to",
          );
          break;
        case "allow-query":
        case "allow-transfer":
        case "also-notify":
        case "notify":
          this.#defaults[name] = option;
          this.#map(
            option,
            what,
            "applied to the policy of every zone that does not set its own",
          );
          break;
        default:
          this.#skip(option, what, optionReason(name));
      }
    }
  }

  async #view(st: ConfStatement): Promise<void> {
    const name = wordsOf(st)[1] ?? "";
    const block = blockOf(st)?.statements ?? [];
    const first = !this.#sawView;
    this.#sawView = true;
    if (!first) {
      for (const inner of block) {
        if (keywordOf(inner) === "zone") {
          this.#skip(
            inner,
            `view ${name}: zone ${wordsOf(inner)[1] ?? ""}`,
            "kudurru has no views in this version: only the first view's zones are imported",
          );
        }
      }
      this.#skip(
        st,
        `view ${name}`,
        "kudurru has no views in this version: only the first view's zones are imported",
      );
      return;
    }
    this.#map(
      st,
      `view ${name}`,
      "its zones are imported; its match-clients and options are not (kudurru has no views in this version)",
    );
    for (const inner of block) {
      const keyword = keywordOf(inner);
      if (keyword === "zone") await this.#zone(inner);
      else if (keyword === "key") this.#key(inner);
      else {
        this.#skip(
          inner,
          `view ${name} { ${allWordsOf(inner).join(" ")} }`,
          "view options have no counterpart in this version",
        );
      }
    }
  }

  #sawView = false;

  #key(st: ConfStatement): void {
    const name = wordsOf(st)[1] ?? "";
    const key = this.#keys.get(normalizeName(toFqdn(name || "key")));
    const ref = key?.ref ?? tsigKeyRef(name);
    const algorithm = (key?.algorithm ?? "").toLowerCase();
    const file = `<dataDir>/${TSIG_KEY_DIR}/${ref}.key`;
    const detail = algorithm in TSIG_ALGORITHMS
      ? `TSIG keys are files in kudurru, not objects: copy this key statement into ${file} (mode 0600); zones refer to it as "${ref}"`
      : `TSIG keys are files in kudurru, not objects, and ${
        algorithm || "this algorithm"
      } is not one kudurru signs with (${
        Object.keys(TSIG_ALGORITHMS).join(", ")
      }): make a new key with \`kudurru tsig generate ${
        name.replace(/\.$/, "") || "NAME"
      }\`, write it to ${file} (mode 0600) and give it to the peers; zones refer to it as "${ref}"`;
    this.#skip(st, `key "${name}" (${algorithm || "no algorithm"})`, detail);
  }

  async #zone(st: ConfStatement): Promise<void> {
    const words = wordsOf(st);
    const rawName = words[1] ?? "";
    const klass = (words[2] ?? "in").toLowerCase();
    const block = blockOf(st)?.statements ?? [];
    const options = new Map<string, ConfStatement>();
    for (const option of block) options.set(keywordOf(option), option);
    const typeWord = (wordsOf(options.get("type") ?? st)[1] ?? "")
      .toLowerCase();
    const type = options.has("type")
      ? typeWord
      : options.has("in-view")
      ? "in-view"
      : "";
    const what = `zone ${rawName}${type ? ` (${type})` : ""}`;
    const zoneName = normalizeName(toFqdn(rawName || "."));
    const problem = rawName === ""
      ? "no name"
      : checkDomainName(zoneName, { requireTrailingDot: true });
    if (problem !== null) {
      this.#skip(st, what, `not a zone name: ${problem}`);
      return;
    }
    if (klass !== "in") {
      this.#skip(
        st,
        what,
        `class ${klass.toUpperCase()}: kudurru serves class IN only`,
      );
      return;
    }
    if (this.#zones.has(zoneName)) {
      this.#skip(
        st,
        what,
        `${zoneName} is imported already (a zone is served once)`,
      );
      return;
    }
    const ctx: ZoneContext = { st, what, zoneName, options };
    switch (type) {
      case "primary":
      case "master":
        return await this.#primary(ctx);
      case "secondary":
      case "slave":
        return this.#secondary(ctx);
      case "forward":
        return this.#forward(ctx);
      case "hint":
        this.#skip(
          st,
          what,
          "root hints: kudurru does not resolve from the root, it forwards to upstreams.groups",
        );
        return;
      case "stub":
      case "static-stub":
      case "mirror":
      case "redirect":
      case "delegation-only":
      case "in-view":
        this.#skip(
          st,
          what,
          `${type} zones have no counterpart in this version of kudurru`,
        );
        return;
      case "":
        this.#skip(st, what, "the zone has no type");
        return;
      default:
        this.#skip(st, what, `unknown zone type "${type}"`);
    }
  }

  /** The DNSZone object; its name is taken only now, once it is certain. */
  #zoneObject(ctx: ZoneContext, spec: Partial<DNSZoneSpec>): KObject {
    this.#zones.add(ctx.zoneName);
    const name = this.#names.take(zoneObjectBase(ctx.zoneName));
    const zone: KObject = {
      apiVersion: API_VERSION,
      kind: "DNSZone",
      metadata: { name },
      spec: { zoneName: ctx.zoneName, ...spec },
    };
    this.objects.push(zone);
    return zone;
  }

  /** Zone options this kind of zone does not read, reported one by one. */
  #otherOptions(
    ctx: ZoneContext,
    read: ReadonlySet<string>,
    why: string,
  ): void {
    for (const [name, option] of ctx.options) {
      if (read.has(name)) continue;
      const reason = ZONE_OPTIONS_READ.has(name) ? why : optionReason(name);
      this.#skip(
        option,
        `${ctx.what}: ${allWordsOf(option).join(" ")}`,
        reason,
      );
    }
  }

  /** The zone's `policy` (bind_zone_policy.ts). */
  #policy(ctx: ZoneContext): Record<string, unknown> {
    return zonePolicy({
      option: (name) => ctx.options.get(name) ?? this.#defaults[name],
      zoneOption: (name) => ctx.options.get(name),
      acls: this.#acls,
      primaryLists: this.#primaryLists,
      keyRef: (name) => this.#keyRef(name),
      note: (st, detail) =>
        this.#skip(st, `${ctx.what}: ${allWordsOf(st)[0]}`, detail),
    });
  }

  /** The reference of a key named in a list, as its `key` statement gives it. */
  #keyRef(name: string): string {
    return this.#keys.get(normalizeName(toFqdn(name)))?.ref ?? tsigKeyRef(name);
  }

  async #primary(ctx: ZoneContext): Promise<void> {
    const fileOption = ctx.options.get("file");
    const file = fileOption ? wordsOf(fileOption)[1] : undefined;
    if (file === undefined) {
      this.#skip(
        ctx.st,
        ctx.what,
        "a primary zone needs a file; none is named",
      );
      return;
    }
    const path = isAbsolute(file) ? file : join(this.#directory, file);
    const label = this.#label(path);
    const importer = new ZoneFileImporter(
      ctx.zoneName,
      label,
      ZONE_FILE_LIMITS.maxRecords,
    );
    try {
      for await (const piece of this.#zoneText(path)) importer.feed(piece);
      importer.feed("", true);
    } catch (error) {
      this.#skip(
        ctx.st,
        ctx.what,
        error instanceof ZoneFileTooLarge
          ? `${label}: ${error.message}`
          : `${
            error instanceof NotUtf8
              ? "not UTF-8 text"
              : missingOrUnreadable(error)
          } (${label}); the zone is not imported: an empty primary would answer NXDOMAIN for every name in it`,
      );
      return;
    }
    const refused = importer.finish();
    if (refused.length > 0) {
      // Read again for the text of the few lines the report quotes.
      const lines = refusedLines(refused);
      const texts = new Map<number, string>();
      const lexer = new ZoneLexer();
      for await (const piece of this.#zoneText(path)) {
        if (entryTexts(lexer.feed(piece), lines, texts)) break;
      }
      entryTexts(lexer.feed("", true), lines, texts);
      importer.refuse(refused, texts);
    }
    const zf = importer.out;
    for (const note of zf.skipped) this.skipped.push(note);
    if (zf.soa === undefined) {
      this.#skip(
        ctx.st,
        ctx.what,
        `${label} has no SOA at ${ctx.zoneName}: BIND would not load the zone either`,
      );
      return;
    }
    const zone = this.#zoneObject(ctx, {
      type: "primary",
      soa: zf.soa,
      ...(zf.nameservers.length > 0 && { nameservers: zf.nameservers }),
      ...(zf.soaTTL !== undefined && { defaultTTL: zf.soaTTL }),
      policy: this.#policy(ctx),
    } as Partial<DNSZoneSpec>);
    const sets: string[] = [];
    for (const spec of recordSetSpecs(zf.rrsets, zone.metadata.name)) {
      const name = this.#setNames.take(`${zone.metadata.name}-bind`);
      sets.push(name);
      this.objects.push({
        apiVersion: API_VERSION,
        kind: "DNSRecordSet",
        metadata: { name, namespace: NAMESPACE },
        spec,
      });
    }
    const extra = zf.notes.length > 0 ? `; ${zf.notes.join("; ")}` : "";
    this.#map(
      ctx.st,
      ctx.what,
      `DNSZone ${zone.metadata.name} (SOA and ${zf.nameservers.length} apex NS from ${label}; the serial is kudurru's own) with ${zf.records} records in ${zf.rrsets.size} RRsets, DNSRecordSet ${
        sets.map((s) => `${NAMESPACE}/${s}`).join(", ") || "none"
      }${extra}`,
    );
    this.#otherOptions(ctx, PRIMARY_READ, "not read for a primary zone");
  }

  /**
   * A zone file's text a piece at a time: read from disk in chunks, so a
   * large file is never held whole, or whole through the ReadFile a caller
   * gave. Past ZONE_FILE_LIMITS.maxBytes it stops with ZoneFileTooLarge;
   * on bytes that are not UTF-8, with NotUtf8.
   */
  async *#zoneText(path: string): AsyncGenerator<string> {
    const decoder = new TextDecoder("utf-8", { fatal: true });
    const max = ZONE_FILE_LIMITS.maxBytes ?? Infinity;
    let bytes = 0;
    const chunks = this.#streamed
      ? (await Deno.open(path)).readable
      : [await this.readFile(path)];
    for await (const chunk of chunks) {
      bytes += chunk.length;
      if (bytes > max) {
        throw new ZoneFileTooLarge(
          new ZoneFileLimitError("bytes", max).message,
        );
      }
      yield decode(decoder, chunk);
    }
    yield decode(decoder);
  }

  #secondary(ctx: ZoneContext): void {
    const option = ctx.options.get("primaries") ?? ctx.options.get("masters");
    if (option === undefined) {
      this.#skip(
        ctx.st,
        ctx.what,
        "a secondary zone needs primaries; none are listed",
      );
      return;
    }
    const list = readServerList(option, this.#primaryLists);
    const where = `${ctx.what}: ${keywordOf(option)}`;
    for (const p of list.problems) this.#skip(option, where, `left out: ${p}`);
    const primaries: string[] = [];
    let keyRef: string | undefined;
    for (const s of list.servers) {
      const target = hostPort(s.address, s.port, true);
      if (s.tls !== undefined) {
        this.#skip(
          option,
          `${where}: ${target} tls ${s.tls}`,
          "XFR over TLS (RFC 9103) is planned; this primary is left out",
        );
        continue;
      }
      if (s.key !== undefined) {
        const ref = this.#keyRef(s.key);
        if (keyRef === undefined) keyRef = ref;
        else if (ref !== keyRef) {
          this.#skip(
            option,
            `${where}: ${target} key ${s.key}`,
            `kudurru signs every transfer of a zone with one key: "${keyRef}" is used`,
          );
        }
      }
      if (!primaries.includes(target) && primaries.length < 16) {
        primaries.push(target);
      }
    }
    if (primaries.length === 0) {
      this.#skip(ctx.st, ctx.what, "no primary left to transfer from");
      return;
    }
    const zone = this.#zoneObject(ctx, {
      type: "secondary",
      secondary: {
        primaries,
        ...(keyRef !== undefined && { tsigKeyRef: keyRef }),
      },
      policy: this.#policy(ctx),
    } as Partial<DNSZoneSpec>);
    this.#map(
      ctx.st,
      ctx.what,
      `DNSZone ${zone.metadata.name} transferred from ${primaries.join(", ")}${
        keyRef ? ` signed with TSIG key "${keyRef}"` : ""
      }`,
    );
    const file = ctx.options.get("file");
    if (file !== undefined) {
      this.#skip(
        file,
        `${ctx.what}: file ${wordsOf(file)[1] ?? ""}`,
        "kudurru keeps a secondary zone's copy in its own data directory",
      );
    }
    this.#otherOptions(ctx, SECONDARY_READ, "not read for a secondary zone");
  }

  #forward(ctx: ZoneContext): void {
    const option = ctx.options.get("forwarders");
    let group: string | undefined;
    let servers: string[] = [];
    if (option === undefined) {
      if (this.groups.default === undefined) {
        this.#skip(
          ctx.st,
          ctx.what,
          "no forwarders, in the zone or in options",
        );
        return;
      }
      group = "default";
      servers = this.groups.default.servers;
    } else {
      const list = readServerList(option);
      const where = `${ctx.what}: forwarders`;
      for (const p of list.problems) {
        this.#skip(option, where, `left out: ${p}`);
      }
      for (const s of list.servers) {
        if (s.tls !== undefined || s.key !== undefined) {
          this.#skip(
            option,
            `${where}: ${s.address}`,
            "a forwarder with tls or key: name it in the upstream group as tls://… by hand",
          );
          continue;
        }
        const server = hostPort(s.address, s.port, false);
        if (!servers.includes(server)) servers.push(server);
      }
      if (servers.length === 0) {
        this.#skip(
          ctx.st,
          ctx.what,
          list.servers.length === 0 && list.problems.length === 0
            ? "an empty forwarders list keeps BIND from forwarding the zone; kudurru has no such exception"
            : "no forwarder left to import",
        );
        return;
      }
      const key = servers.join(" ");
      group = this.#groupBySet.get(key);
      if (group === undefined) {
        group = this.#groupNames.take(zoneObjectBase(ctx.zoneName));
        this.#groupBySet.set(key, group);
        this.groups[group] = { servers };
      }
    }
    const mode = ctx.options.get("forward") ?? this.#defaults["forward"];
    const first = mode === undefined ||
      (wordsOf(mode)[1] ?? "").toLowerCase() === "first";
    const zone = this.#zoneObject(ctx, {
      type: "forward",
      forward: { upstreamGroup: group, dnssecValidation: false },
    } as Partial<DNSZoneSpec>);
    this.#map(
      ctx.st,
      ctx.what,
      `DNSZone ${zone.metadata.name} forwarding to upstream group ${group} (${
        servers.join(", ")
      })`,
    );
    if (first) {
      this.#skip(
        mode ?? ctx.st,
        `${ctx.what}: forward first${
          mode === undefined ? " (BIND's default)" : ""
        }`,
        "a kudurru forward zone does not fall back to resolution when the forwarders fail: imported as forward only",
      );
    }
    this.#otherOptions(ctx, FORWARD_READ, "not read for a forward zone");
  }

  readonly #setNames = new UniqueNames();
  readonly #groupBySet = new Map<string, string>();
}

const POLICY_READ = [
  "allow-query",
  "allow-transfer",
  "also-notify",
  "notify",
  "allow-update",
];
const PRIMARY_READ: ReadonlySet<string> = new Set([
  "type",
  "file",
  ...POLICY_READ,
]);
const SECONDARY_READ: ReadonlySet<string> = new Set([
  "type",
  "file",
  "primaries",
  "masters",
  ...POLICY_READ,
]);
const FORWARD_READ: ReadonlySet<string> = new Set([
  "type",
  "forward",
  "forwarders",
]);

interface ZoneContext {
  st: ConfStatement;
  what: string;
  zoneName: string;
  options: Map<string, ConfStatement>;
}

/** A zone file whose bytes are not UTF-8. */
class NotUtf8 extends Error {}

/** The next piece of text (the rest, without `chunk`). */
function decode(decoder: TextDecoder, chunk?: Uint8Array): string {
  try {
    return chunk === undefined
      ? decoder.decode()
      : decoder.decode(chunk, { stream: true });
  } catch (error) {
    if (error instanceof TypeError) throw new NotUtf8(error.message);
    throw error;
  }
}

function missingOrUnreadable(error: unknown): string {
  return error instanceof Deno.errors.NotFound
    ? "missing file: not found"
    : `cannot read it: ${(error as Error).message}`;
}

/** Why an option kudurru does not take is skipped. */
function optionReason(name: string): string {
  if (
    /^listen-on|port$|^query-source|^notify-source|^transfer-source/.test(name)
  ) {
    return "listeners and source addresses are node settings (kudurru.yaml listeners)";
  }
  if (/^dnssec|^trust-anchor|validation/.test(name)) {
    return "DNSSEC signing and validation have no counterpart in this version";
  }
  if (name === "allow-update" || name === "update-policy") {
    return "dynamic updates (RFC 2136) arrive in a later version of kudurru";
  }
  if (name === "recursion") {
    return "kudurru forwards what it does not serve (upstreams); there is no recursion setting";
  }
  return "no counterpart in kudurru";
}
