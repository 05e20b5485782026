/**
 * Test fixtures for the cache: upstream answers encoded from presentation
 * lines, snapshots carrying cache settings, and a scripted `next` that
 * counts its calls.
 */
import { cacheSchema } from "../../../config/schema_resolver.ts";
import { RCODE } from "../../../dns/wire/constants.ts";
import { encodeResponse } from "../../../dns/wire/response.ts";
import type { Request } from "../../../pipeline/request.ts";
import type { Response } from "../../../pipeline/response.ts";
import type { Snapshot } from "../../../pipeline/snapshot.ts";
import type { Next } from "../../../pipeline/stage.ts";
import type { Status } from "../../../pipeline/status.ts";
import type { CacheSettings } from "../../../pipeline/settings.ts";
import {
  requestFor,
  type RequestOptions,
  snapshotOf,
} from "../../../testing/fixtures.ts";
import { zoneFromText } from "../../../testing/zone_text.ts";
import type { RRSet } from "../../../dns/rrset.ts";

/** RRsets from lines `owner ttl class type rdata`. */
export function records(lines: string[]): RRSet[] {
  return lines.length === 0 ? [] : zoneFromText(".", lines).rrsets;
}

/** What an upstream answer says; sections as presentation lines. */
export interface AnswerText {
  rcode?: number;
  answer?: string[];
  authority?: string[];
  additional?: string[];
  tc?: boolean;
  aa?: boolean;
  /** Adds an OPT record, as upstreams answering EDNS queries do. */
  edns?: boolean;
}

/** The upstream's answer to `req`, as the upstream stage hands it on (client's ID). */
export function upstreamWire(req: Request, text: AnswerText = {}): Uint8Array {
  const q = req.query;
  return encodeResponse({
    id: q.id,
    opcode: q.opcode,
    rcode: text.rcode ?? RCODE.NOERROR,
    rd: q.rd,
    ra: true,
    aa: text.aa ?? false,
    tc: text.tc ?? false,
    question: q.question!,
    answer: records(text.answer ?? []),
    authority: records(text.authority ?? []),
    additional: records(text.additional ?? []),
    ...(text.edns && { edns: { udpSize: 1232 } }),
  }, 65535);
}

/** A Response as the upstream stage gives it. */
export function forwarded(
  req: Request,
  text: AnswerText = {},
  status: Status = "forwarded",
): Response {
  return { wire: upstreamWire(req, text), status, stage: "upstream" };
}

/** Cache settings: the schema's defaults with `overrides`. */
export function cacheSettings(
  overrides: Record<string, unknown> = {},
): CacheSettings {
  return cacheSchema.parse(overrides);
}

/** A snapshot carrying `cache` settings (upstreams and ratelimit unused). */
export function snapshotWithCache(cache: CacheSettings): Snapshot {
  return {
    ...snapshotOf([]),
    settings: { cache } as Snapshot["settings"] & object,
  };
}

/** A request for `question` answered from `snapshot`. */
export function ask(
  question: string,
  snapshot: Snapshot,
  opts: RequestOptions = {},
): Request {
  return requestFor(question, { ...opts, snapshot });
}

/** The A record the scripted upstream answers with by default. */
export const WWW_A = "www.example.org. 300 IN A 192.0.2.1";

/** How a scripted upstream answers one call. */
export type Script = (req: Request) => Response;

/**
 * A `next` that answers with `script` after `delayMs` (synchronously when
 * undefined), counting calls. Pending timers are cleared by `close()`.
 */
export class ScriptedUpstream {
  calls = 0;
  script: Script;
  delayMs: number | undefined;
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(script: Script, delayMs?: number) {
    this.script = script;
    this.delayMs = delayMs;
  }

  readonly next: Next = (req) => {
    this.calls++;
    const script = this.script;
    if (this.delayMs === undefined) return script(req);
    return new Promise<Response>((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        resolve(script(req));
      }, this.delayMs);
      this.#timers.add(timer);
    });
  };

  close(): void {
    for (const timer of this.#timers) clearTimeout(timer);
  }
}

/** A fake clock in milliseconds. */
export class FakeClock {
  ms = 1_700_000_000_000;
  readonly now = (): number => this.ms;
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}
