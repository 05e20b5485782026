/**
 * NOTIFY out (RFC 1996): when a primary zone gets a new serial, tell its
 * secondaries so they refresh now rather than at their next SOA refresh.
 *
 * One NOTIFY per (zone, target) at a time, over UDP (§3.4), each attempt
 * from its own socket bound to port 0 with a fresh random ID, as the
 * upstream UDP client sends queries (RFC 5452 §9.2). A NOERROR reply
 * acknowledges it (§3.6). Silence, or another RCODE (NOTAUTH, REFUSED,
 * …), is a failed attempt, re-sent after a doubling delay (§3.6: until a
 * reply comes or too many were sent; it calls exponential backoff
 * reasonable). A secondary refuses while its side (ACL, key, zone) is not
 * set up yet, and may take the next try. After the last retry the target
 * has failed for that serial. NOTIMP ends it at once: the secondary has
 * no NOTIFY at all, and §3.12 counts the transaction complete.
 *
 * Coalescing: a zone's newer serial replaces the older one's NOTIFY,
 * queued or waiting to retry; one already sent is let finish, its result
 * dropped, and the newer serial goes after it (a secondary that gets a
 * NOTIFY asks its primary for the data itself, §3.7, so only the latest
 * serial needs telling). The same serial again while one is outstanding
 * changes nothing. So at most one NOTIFY per (zone, target) is out, one
 * more waits, and a zone's targets are those of its latest notify().
 *
 * With a TSIG key every attempt is signed (RFC 8945 §5.1) and the reply
 * must be signed with it too, over our request's MAC (§5.3, §5.4): an
 * unsigned NOERROR, or one whose MAC does not verify, is a failed
 * attempt, since anyone on the path could forge it. §5.4 would have the
 * client wait on for a better reply until the timeout; ending the attempt
 * at once gives the same outcome (failed, retried) sooner and with the
 * reason kept.
 */
import ipaddr from "ipaddr.js";
import { isIpAddress } from "../dns/ip_text.ts";
import { normalizeName, toFqdn } from "../dns/name.ts";
import type { RRSet } from "../dns/rrset.ts";
import { checkMessage, signMessage, type TsigKey } from "../dns/tsig/tsig.ts";
import { RCODE } from "../dns/wire/constants.ts";
import { rcodeName } from "../dns/wire/rcode_name.ts";
import type { Logger } from "../log/logger.ts";
import { randomQueryId } from "../upstream/build_query.ts";
import { localAddressFor } from "../upstream/udp.ts";
import {
  encodeNotify,
  readNotifyReply,
  soaSerial,
  tsigErrorName,
} from "./notify_message.ts";

/** A secondary to notify: an IP address (v4 or v6 text) and a port. */
export interface NotifyTarget {
  address: string;
  port: number;
}

/**
 * Where one (zone, target) stands: `pending` waits for its turn or its
 * next retry, `sent` waits for the reply, `acknowledged` got NOERROR,
 * `failed` got no acknowledgment in any attempt.
 */
export type NotifyState = "pending" | "sent" | "acknowledged" | "failed";

/** One (zone, target) as {@linkcode Notifier.status} reports it. */
export interface NotifyTargetStatus {
  /** The zone, fully qualified, in the case first given. */
  zone: string;
  target: NotifyTarget;
  /** The serial being (or last) notified. */
  serial: number;
  state: NotifyState;
  /** Attempts sent for this serial. */
  attempts: number;
  /** The last attempt's failure ("timeout", "REFUSED", "BADSIG", …); cleared by an acknowledgment. */
  lastError?: string;
  /** When the last attempt was sent (ms since the epoch, from `now`). */
  lastAt?: number;
}

/** How a (zone, target, serial) ended: one call of `onResult` each. */
export interface NotifyResult {
  zone: string;
  target: NotifyTarget;
  serial: number;
  outcome: "acknowledged" | "failed";
  attempts: number;
  /** The last failure, when `outcome` is "failed". */
  error?: string;
}

/** What {@linkcode createNotifier} needs. */
export interface NotifierOptions {
  logger: Logger;
  /** NOTIFYs waiting for a reply at once, over all zones. @default 16 */
  maxInFlight?: number;
  /** How long one attempt waits for its reply (ms). @default 2000 */
  timeoutMs?: number;
  /** Attempts after the first. @default 5 */
  retries?: number;
  /** Wait before the first retry (ms); each later one doubles it. @default 2000 */
  retryDelayMs?: number;
  /** Longest wait between two attempts (ms). @default 30000 */
  maxRetryDelayMs?: number;
  /** Clock (ms since the epoch): TSIG Time Signed and `lastAt`. @default Date.now */
  now?: () => number;
  /** Uniform in [0, 1), for the retry jitter. @default Math.random */
  random?: () => number;
  /** Each target's outcome, for metrics and a NotifyFailed condition. */
  onResult?: (result: NotifyResult) => void;
}

/** Sends NOTIFYs; see the module comment. */
export interface Notifier {
  /**
   * Notifies `targets` of the zone's current SOA (`soa`, type 6), signed
   * with `key` when given. Targets of the zone missing from `targets` are
   * forgotten (an empty list forgets the zone). Never throws: problems are
   * logged and reported through `onResult` and `status`.
   */
  notify(
    zone: string,
    soa: RRSet,
    targets: NotifyTarget[],
    key?: TsigKey,
  ): void;
  /** Every (zone, target) known, or those of `zone`. */
  status(zone?: string): NotifyTargetStatus[];
  /** Cancels timers and attempts; resolves once every socket is closed. */
  stop(): Promise<void>;
}

/** The defaults, spelled out for the README and the tests. */
export const NOTIFY_DEFAULTS = {
  maxInFlight: 16,
  timeoutMs: 2000,
  retries: 5,
  retryDelayMs: 2000,
  maxRetryDelayMs: 30_000,
} as const;

/**
 * Jitter: each retry waits up to this fraction longer, so the NOTIFYs of
 * many zones that failed together do not all come back at once.
 */
const RETRY_JITTER = 0.1;

/** Largest reply read; a NOTIFY reply is a header, a question and maybe a TSIG. */
const RECEIVE_OCTETS = 4096;

/** Distinct notify() argument problems remembered as logged. */
const LOGGED_INPUT_CAP = 1024;

/** Why an attempt was aborted. */
const TIMEOUT = "timeout";
const CANCELLED = "cancelled";

/** One (zone, target): its current serial and where its NOTIFY stands. */
interface Entry {
  readonly zone: string;
  readonly target: NotifyTarget;
  /** The target's address in one spelling, to match the reply's source. */
  readonly peer: string;
  serial: number;
  soa: RRSet;
  tsig: TsigKey | undefined;
  state: NotifyState;
  attempts: number;
  lastError: string | undefined;
  lastAt: number | undefined;
  /**
   * Bumped when a newer serial replaces this one: the result of an attempt
   * for an older serial is dropped, and the newer serial sent after it.
   */
  generation: number;
  /** Forgotten (left out of the zone's targets, or stopped): nothing more is sent. */
  removed: boolean;
  /** The attempt waiting for its reply, if any. */
  inFlight: AbortController | undefined;
  /** The wait before the next retry, if any. */
  retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Errors logged since the last acknowledgment (each logged once). */
  readonly logged: Set<string>;
}

/** What one attempt came to. */
type Outcome =
  | { ok: true }
  /** `final`: no retry (NOTIMP). */
  | { ok: false; error: string; final?: boolean }
  | { cancelled: true };

/** A notifier with nothing sent yet. */
export function createNotifier(opts: NotifierOptions): Notifier {
  const logger = opts.logger;
  const maxInFlight = Math.max(
    1,
    opts.maxInFlight ?? NOTIFY_DEFAULTS.maxInFlight,
  );
  const timeoutMs = opts.timeoutMs ?? NOTIFY_DEFAULTS.timeoutMs;
  const retries = Math.max(0, opts.retries ?? NOTIFY_DEFAULTS.retries);
  const retryDelayMs = opts.retryDelayMs ?? NOTIFY_DEFAULTS.retryDelayMs;
  const maxRetryDelayMs = opts.maxRetryDelayMs ??
    NOTIFY_DEFAULTS.maxRetryDelayMs;
  const now = opts.now ?? Date.now;
  const random = opts.random ?? Math.random;

  /** Every (zone, target), by zone then target. */
  const zones = new Map<string, Map<string, Entry>>();
  /** Entries waiting for an in-flight slot, in order (a Set keeps insertion order). */
  const queue = new Set<Entry>();
  /** Attempts running, so stop() can wait for their sockets to close. */
  const running = new Set<Promise<void>>();
  /**
   * Problems with the arguments of notify(), each logged once per zone (a
   * caller repeating a bad call does not flood the log); forgotten in bulk
   * past LOGGED_INPUT_CAP, so a long run with ever-new bad zones stays bounded.
   */
  const loggedInput = new Set<string>();
  let inFlight = 0;
  let stopped = false;

  /**
   * A bug of ours, or a `now` that throws: logged, never thrown at a timer
   * or left as an unhandled rejection that would end the process.
   */
  function unexpected(error: unknown): void {
    logger.error("NOTIFY bookkeeping failed", { error: errorText(error) });
  }

  function targetText(target: NotifyTarget): string {
    return target.address.includes(":")
      ? `[${target.address}]:${target.port}`
      : `${target.address}:${target.port}`;
  }

  function logOnce(entry: Entry, error: string, message: string): void {
    if (entry.logged.has(message + error)) return;
    entry.logged.add(message + error);
    logger.warn(message, {
      zone: entry.zone,
      target: targetText(entry.target),
      serial: entry.serial,
      error,
      attempts: entry.attempts,
    });
  }

  function report(entry: Entry, outcome: "acknowledged" | "failed"): void {
    if (opts.onResult === undefined) return;
    const result: NotifyResult = {
      zone: entry.zone,
      target: { ...entry.target },
      serial: entry.serial,
      outcome,
      attempts: entry.attempts,
    };
    if (outcome === "failed" && entry.lastError !== undefined) {
      result.error = entry.lastError;
    }
    try {
      opts.onResult(result);
    } catch (error) {
      logger.error("NOTIFY result callback failed", { error });
    }
  }

  /** Stops whatever the entry has queued, running or waiting, for good. */
  function cancel(entry: Entry): void {
    entry.removed = true;
    queue.delete(entry);
    if (entry.retryTimer !== undefined) {
      clearTimeout(entry.retryTimer);
      entry.retryTimer = undefined;
    }
    // Closing the socket ends the receive; the attempt frees its slot.
    entry.inFlight?.abort(CANCELLED);
    entry.inFlight = undefined;
  }

  /** Queues the entry (where it is, if it already waits) and sends what may go. */
  function enqueue(entry: Entry): void {
    entry.state = "pending";
    queue.add(entry);
    pump();
  }

  function pump(): void {
    while (!stopped && inFlight < maxInFlight && queue.size > 0) {
      const entry = queue.values().next().value!;
      queue.delete(entry);
      start(entry);
    }
  }

  function start(entry: Entry): void {
    inFlight++;
    const generation = entry.generation;
    const controller = new AbortController();
    entry.inFlight = controller;
    entry.state = "sent";
    entry.attempts++;
    entry.lastAt = now();
    const run = attempt(entry, controller)
      .catch((error): Outcome => ({ ok: false, error: errorText(error) }))
      .then((outcome) => {
        inFlight--;
        if (entry.inFlight === controller) entry.inFlight = undefined;
        if (stopped || entry.removed || "cancelled" in outcome) {
          // Forgotten: nothing to report.
        } else if (entry.generation === generation) {
          settle(entry, outcome);
        } else {
          // A newer serial came while this attempt was out: send it now.
          queue.add(entry);
        }
        pump();
      })
      .catch(unexpected);
    const tracked = run.finally(() => running.delete(tracked));
    running.add(tracked);
  }

  function settle(
    entry: Entry,
    outcome: { ok: true } | { ok: false; error: string; final?: boolean },
  ): void {
    if (outcome.ok) {
      entry.state = "acknowledged";
      entry.lastError = undefined;
      entry.logged.clear();
      logger.debug("NOTIFY acknowledged", {
        zone: entry.zone,
        target: targetText(entry.target),
        serial: entry.serial,
        attempts: entry.attempts,
      });
      report(entry, "acknowledged");
      return;
    }
    entry.lastError = outcome.error;
    if (entry.attempts <= retries && outcome.final !== true) {
      logOnce(entry, outcome.error, "NOTIFY not acknowledged; retrying");
      entry.state = "pending";
      const base = Math.min(
        retryDelayMs * 2 ** (entry.attempts - 1),
        maxRetryDelayMs,
      );
      const delay = Math.round(base * (1 + RETRY_JITTER * random()));
      entry.retryTimer = setTimeout(() => {
        entry.retryTimer = undefined;
        try {
          enqueue(entry);
        } catch (error) {
          unexpected(error);
        }
      }, delay);
      return;
    }
    logOnce(
      entry,
      outcome.error,
      outcome.final === true
        ? "NOTIFY failed: the secondary does not implement NOTIFY"
        : "NOTIFY failed: no acknowledgment after the last retry",
    );
    entry.state = "failed";
    report(entry, "failed");
  }

  /** One NOTIFY sent and its reply awaited, or the timeout. */
  async function attempt(
    entry: Entry,
    controller: AbortController,
  ): Promise<Outcome> {
    const signal = controller.signal;
    const id = randomQueryId();
    const unsigned = encodeNotify({ id, zone: entry.zone, soa: entry.soa });
    const key = entry.tsig;
    let message = unsigned;
    let requestMac: Uint8Array | undefined;
    if (key !== undefined) {
      const signed = await signMessage(unsigned, key, { now: now() / 1000 });
      message = signed.message;
      requestMac = signed.mac;
    }
    if (signal.aborted) return { cancelled: true };
    // A loopback target is sent to from loopback, others from the wildcard
    // address of their family (as the upstream UDP client binds).
    const socket = Deno.listenDatagram({
      transport: "udp",
      hostname: localAddressFor(entry.target.address),
      port: 0,
    });
    // Closing the socket is what ends a pending receive.
    const close = () => socket.close();
    signal.addEventListener("abort", close, { once: true });
    const timer = setTimeout(() => controller.abort(TIMEOUT), timeoutMs);
    const buffer = new Uint8Array(RECEIVE_OCTETS);
    try {
      await socket.send(message, {
        transport: "udp",
        hostname: entry.target.address,
        port: entry.target.port,
      });
      for (;;) {
        const [data, from] = await socket.receive(buffer);
        const source = from as Deno.NetAddr;
        if (source.port !== entry.target.port) continue;
        if (addressKey(source.hostname) !== entry.peer) continue;
        const judged = await judge(entry, id, data, key, requestMac);
        if (judged !== undefined) return judged;
      }
    } catch (error) {
      if (signal.aborted) {
        return signal.reason === TIMEOUT
          ? { ok: false, error: TIMEOUT }
          : { cancelled: true };
      }
      return { ok: false, error: errorText(error) };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", close);
      if (!signal.aborted) socket.close();
    }
  }

  /** The outcome a datagram from the target brings, or undefined to wait on. */
  async function judge(
    entry: Entry,
    id: number,
    data: Uint8Array,
    key: TsigKey | undefined,
    requestMac: Uint8Array | undefined,
  ): Promise<Outcome | undefined> {
    const reply = readNotifyReply({ id, zone: entry.zone }, data);
    if (reply.kind === "stray") {
      logger.debug("NOTIFY: ignored a datagram that is not the reply", {
        zone: entry.zone,
        target: targetText(entry.target),
        why: reply.why,
      });
      return undefined;
    }
    if (reply.kind === "malformed") {
      return { ok: false, error: `malformed reply: ${reply.why}` };
    }
    if (reply.rcode === RCODE.NOTIMP) {
      // RFC 1996 §3.12: no NOTIFY there; asking again will not change it.
      return { ok: false, error: "NOTIMP", final: true };
    }
    if (reply.rcode !== RCODE.NOERROR) {
      // NOTAUTH with a TSIG error is how a secondary refuses our key or
      // MAC (RFC 8945 §5.2, §5.3.2): name both.
      const name = rcodeName(reply.rcode);
      return {
        ok: false,
        error: reply.tsigError === 0
          ? name
          : `${name} (${tsigErrorName(reply.tsigError)})`,
      };
    }
    if (key === undefined) return { ok: true };
    // RFC 8945 §5.3: the reply to a signed request is signed over its MAC.
    if (!reply.signed) return { ok: false, error: "reply not signed" };
    const check = await checkMessage(
      data,
      (name) =>
        normalizeName(name) === normalizeName(key.name) ? key : undefined,
      { now: now() / 1000, ...(requestMac && { requestMac }) },
    );
    if (check.status === "ok") return { ok: true };
    if (check.status === "unsigned") {
      return { ok: false, error: "reply not signed" };
    }
    return { ok: false, error: tsigErrorName(check.error) };
  }

  function notify(
    zone: string,
    soa: RRSet,
    targets: NotifyTarget[],
    key?: TsigKey,
  ): void {
    try {
      notifyUnsafe(zone, soa, targets, key);
    } catch (error) {
      // Nothing here should throw; if it does, the caller must not fail.
      const text = errorText(error);
      if (firstTime(`${zone} ${text}`)) {
        logger.error("NOTIFY could not be queued", { zone, error: text });
      }
    }
  }

  function firstTime(problem: string): boolean {
    if (loggedInput.has(problem)) return false;
    if (loggedInput.size >= LOGGED_INPUT_CAP) loggedInput.clear();
    loggedInput.add(problem);
    return true;
  }

  function notifyUnsafe(
    zone: string,
    soa: RRSet,
    targets: NotifyTarget[],
    key?: TsigKey,
  ): void {
    if (stopped) {
      logger.debug("NOTIFY after stop ignored", { zone });
      return;
    }
    const zoneKey = normalizeName(zone);
    const serial = soaSerial(soa);
    if (typeof serial === "string") {
      inputProblem(zoneKey, zone, serial);
      return;
    }
    try {
      encodeNotify({ id: 0, zone, soa });
    } catch (error) {
      inputProblem(zoneKey, zone, errorText(error));
      return;
    }
    let entries = zones.get(zoneKey);
    if (entries === undefined) {
      entries = new Map();
      zones.set(zoneKey, entries);
    }
    const wanted = new Set<string>();
    for (const target of targets) {
      const peer = isIpAddress(target.address)
        ? addressKey(target.address)
        : undefined;
      const targetKey = `${peer ?? target.address} ${target.port}`;
      if (wanted.has(targetKey)) continue; // listed twice
      wanted.add(targetKey);
      let entry = entries.get(targetKey);
      if (
        entry !== undefined && entry.serial === serial &&
        entry.state !== "failed"
      ) {
        // Already on its way, or acknowledged: nothing new to say.
        continue;
      }
      if (entry === undefined) {
        entry = {
          zone: toFqdn(zone),
          target: { address: target.address, port: target.port },
          peer: peer ?? "",
          serial,
          soa,
          tsig: key,
          state: "pending",
          attempts: 0,
          lastError: undefined,
          lastAt: undefined,
          generation: 0,
          removed: false,
          inFlight: undefined,
          retryTimer: undefined,
          logged: new Set(),
        };
        entries.set(targetKey, entry);
      } else {
        // A newer serial (or the same after giving up) replaces the old
        // one: a queued NOTIFY keeps its place with the new SOA, a wait
        // for a retry ends, and an attempt under way is let finish (its
        // result dropped) before the new serial goes, so a burst of
        // serials costs a slow secondary two NOTIFYs, not one each.
        entry.generation++;
        if (entry.retryTimer !== undefined) {
          clearTimeout(entry.retryTimer);
          entry.retryTimer = undefined;
        }
        entry.serial = serial;
        entry.soa = soa;
        entry.tsig = key;
        entry.attempts = 0;
      }
      const unusable = peer === undefined
        ? `${JSON.stringify(target.address)} is not an IP address`
        : !Number.isInteger(target.port) || target.port < 1 ||
            target.port > 65535
        ? `port ${target.port} is not 1-65535`
        : undefined;
      if (unusable !== undefined) {
        entry.lastError = unusable;
        entry.state = "failed";
        logOnce(entry, unusable, "NOTIFY target unusable");
        report(entry, "failed");
        continue;
      }
      entry.state = "pending";
      if (entry.inFlight === undefined) enqueue(entry);
    }
    // The zone's targets are those of its latest notify(): the rest go.
    for (const [targetKey, entry] of entries) {
      if (wanted.has(targetKey)) continue;
      cancel(entry);
      entries.delete(targetKey);
    }
    if (entries.size === 0) zones.delete(zoneKey);
  }

  function inputProblem(zoneKey: string, zone: string, problem: string): void {
    if (!firstTime(`${zoneKey} ${problem}`)) return;
    logger.error("Cannot NOTIFY the secondaries of a zone", {
      zone,
      error: problem,
    });
  }

  function status(zone?: string): NotifyTargetStatus[] {
    const lists = zone === undefined
      ? [...zones.values()]
      : [zones.get(normalizeName(zone)) ?? new Map<string, Entry>()];
    const out: NotifyTargetStatus[] = [];
    for (const entries of lists) {
      for (const entry of entries.values()) {
        const row: NotifyTargetStatus = {
          zone: entry.zone,
          target: { ...entry.target },
          serial: entry.serial,
          state: entry.state,
          attempts: entry.attempts,
        };
        if (entry.lastError !== undefined) row.lastError = entry.lastError;
        if (entry.lastAt !== undefined) row.lastAt = entry.lastAt;
        out.push(row);
      }
    }
    return out;
  }

  async function stop(): Promise<void> {
    stopped = true;
    queue.clear();
    for (const entries of zones.values()) {
      for (const entry of entries.values()) cancel(entry);
    }
    while (running.size > 0) await Promise.all(running);
  }

  return { notify, status, stop };
}

/** One spelling per address, so "::1" and "0:0::1" compare equal. */
function addressKey(address: string): string {
  try {
    return ipaddr.process(address).toString();
  } catch {
    return address;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
