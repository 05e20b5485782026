/**
 * Compiles BlockList objects into CompiledListData, once per change that
 * matters. A list is looked at again only when its spec or one of its
 * source bodies changed; then its rules are digested first, and compiled
 * only when the normalised rules differ from what is compiled (list bodies
 * change their header timestamps daily while their rules stay the same).
 */
import type { BlockList, ListSource } from "../api/v1alpha1/blocklist.ts";
import type { Logger } from "../log/logger.ts";
import { decodeListBody, parseList } from "../blocking/parse/mod.ts";
import {
  createListCompiler,
  createRuleDigest,
} from "../blocking/matcher/mod.ts";
import {
  type CompiledListData,
  NotAListError,
  type RuleSink,
} from "../blocking/types.ts";

/** A source body as read from the spec or the lists directory. */
export interface SourceBody {
  /** For log lines: the URL or "inline". */
  label: string;
  /** Changes whenever the body does (a digest, or mtime and size). */
  version: string;
  read(): Uint8Array | string;
}

/** Where the bodies of a list's sources come from. */
export type BodyReader = (source: ListSource) => SourceBody | undefined;

interface Compiled {
  /** The spec version and body versions this was last checked against. */
  inputKey: string;
  data: CompiledListData;
}

/** Per-list memory of what was compiled, so unchanged lists cost nothing. */
export class ListCompileCache {
  #byKey = new Map<string, Compiled>();
  #log: Logger;

  constructor(logger: Logger) {
    this.#log = logger;
  }

  /**
   * The compiled form of `list` ("namespace/name" `key`), reusing the last
   * compile when its inputs or its rules did not change.
   */
  compile(
    key: string,
    list: BlockList,
    contentVersion: string,
    readBody: BodyReader,
  ): CompiledListData {
    const mode = list.spec?.mode ?? "block";
    const sources = (list.spec?.sources ?? []).filter((s) => s.enabled);
    const bodies = sources.map((s) => ({ source: s, body: readBody(s) }));
    const inputKey = [
      contentVersion,
      ...bodies.map((b) => b.body?.version ?? "-"),
    ].join("|");
    const previous = this.#byKey.get(key);
    if (previous?.inputKey === inputKey) return previous.data;

    const meta = { key, name: list.metadata.name, mode };
    if (previous !== undefined) {
      // The digest covers the mode too.
      const digest = createRuleDigest({ mode });
      this.#feed(key, bodies, digest);
      if (digest.digest() === previous.data.digest) {
        const data = { ...previous.data, name: meta.name };
        this.#byKey.set(key, { inputKey, data });
        return data;
      }
    }
    const compiler = createListCompiler(meta, {
      warn: (message) => this.#log.warn(message, { list: key }),
    });
    this.#feed(key, bodies, compiler);
    const data = compiler.finish();
    this.#byKey.set(key, { inputKey, data });
    this.#log.info("Compiled a block list", {
      list: key,
      rules: data.ruleCount,
    });
    return data;
  }

  /** Forgets lists that no longer exist. */
  retain(keys: ReadonlySet<string>): void {
    for (const key of this.#byKey.keys()) {
      if (!keys.has(key)) this.#byKey.delete(key);
    }
  }

  #feed(
    key: string,
    bodies: { source: ListSource; body: SourceBody | undefined }[],
    sink: RuleSink,
  ): void {
    for (const { source, body } of bodies) {
      if (body === undefined) continue;
      try {
        const raw = body.read();
        const text = typeof raw === "string" ? raw : decodeListBody(raw);
        parseList(text, source.format, sink);
      } catch (err) {
        // A source that cannot be read or is not a list costs that source
        // only; the fetcher keeps the last good body on disk.
        const why = err instanceof NotAListError || err instanceof Error
          ? err.message
          : String(err);
        this.#log.warn("Cannot use a block list source", {
          list: key,
          source: body.label,
          error: why,
        });
      }
    }
  }
}
