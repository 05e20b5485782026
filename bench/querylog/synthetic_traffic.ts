/**
 * Home/office-like DNS traffic for the query-log benchmark, deterministic
 * (seeded): ~50k distinct names with zipf popularity, 50 clients (a few
 * chatty ones), a realistic mix of statuses, types, answers and latencies.
 * One `draw()` describes one query; the benchmark turns it into a
 * QueryEvent (through the writer) or directly into an events row.
 */
import type { QueryEvent } from "../../src/pipeline/query_event.ts";

/** mulberry32: small, fast, good enough for traffic shapes. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Samples 0..n-1 with P(k) ∝ 1/(k+1)^s. */
function zipfSampler(n: number, s: number, random: () => number) {
  const cumulative = new Float64Array(n);
  let sum = 0;
  for (let k = 0; k < n; k++) cumulative[k] = sum += 1 / Math.pow(k + 1, s);
  return () => {
    const x = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const WORDS = [
  "cdn",
  "api",
  "static",
  "img",
  "www",
  "edge",
  "ads",
  "track",
  "mail",
  "login",
  "media",
  "video",
  "push",
  "telemetry",
  "update",
  "sync",
  "app",
];
const SLDS = [
  "example",
  "akamai-ish",
  "cloudfront-ish",
  "google-ish",
  "apple-ish",
  "microsoft-ish",
  "netflix-ish",
  "fastly-ish",
  "doubleclick-ish",
  "shop",
];
const TLDS = ["com.", "net.", "org.", "io.", "de.", "fr.", "co.uk."];

/** The statuses and their share of traffic. */
const STATUS_MIX: [string, string, number][] = [
  ["forwarded", "upstream", 0.55],
  ["cached", "cache", 0.28],
  ["blocked_list", "blocking", 0.1],
  ["local_record", "local", 0.02],
  ["authoritative", "authoritative", 0.02],
  ["cached_stale", "cache", 0.01],
  ["servfail_upstream", "upstream", 0.01],
  ["timeout_upstream", "upstream", 0.01],
];

export interface Draw {
  /** Index into names / clients (for dictionary-id bulk generation). */
  name: number;
  client: number;
  qtype: number;
  status: string;
  stage: string;
  upstream: string | undefined;
  list: string | undefined;
  rule: string | undefined;
  rcode: number;
  answer: string;
  size: number;
  durationUs: number;
  port: number;
}

export interface Traffic {
  names: string[];
  clients: string[];
  draw(): Draw;
}

export function syntheticTraffic(
  seed = 42,
  nameCount = 50_000,
  clientCount = 50,
): Traffic {
  const random = seededRandom(seed);
  const names = Array.from({ length: nameCount }, (_, i) => {
    const word = WORDS[i % WORDS.length]!;
    const sld = SLDS[Math.floor(i / WORDS.length) % SLDS.length]!;
    const tld = TLDS[i % TLDS.length]!;
    return `${word}${i % 97}.${sld}${i % 1009}.${tld}`;
  });
  const clients = Array.from(
    { length: clientCount },
    (_, i) =>
      i % 10 === 9
        ? `2001:db8:1::${(i + 1).toString(16)}`
        : `192.168.1.${i + 2}`,
  );
  const pickName = zipfSampler(nameCount, 1.0, random);
  const pickClient = zipfSampler(clientCount, 0.8, random);
  const total = STATUS_MIX.reduce((s, [, , w]) => s + w, 0);
  const draw = (): Draw => {
    const name = pickName();
    const client = pickClient();
    const r = random();
    const qtype = r < 0.6 ? 1 : r < 0.9 ? 28 : r < 0.97 ? 65 : 16;
    let x = random() * total;
    let [status, stage] = ["forwarded", "upstream"];
    for (const [s, st, w] of STATUS_MIX) {
      if ((x -= w) <= 0) {
        [status, stage] = [s, st];
        break;
      }
    }
    const blocked = status === "blocked_list";
    const failed = status.endsWith("_upstream");
    const nx = !blocked && !failed && name % 23 === 0;
    const variant = Math.floor(random() * (1 + (name % 3)));
    const answer = blocked
      ? (qtype === 28 ? "AAAA ::" : "A 0.0.0.0")
      : failed || nx || qtype === 16
      ? ""
      : qtype === 28
      ? `AAAA 2001:db8:${(name % 4096).toString(16)}::${variant + 1}`
      : qtype === 65
      ? "HTTPS 1 . alpn=h2,h3"
      : `A 203.0.${name % 256}.${(variant * 37 + name) % 256}`;
    const durationUs = status === "forwarded"
      ? 4000 + Math.floor(random() * 60_000)
      : failed
      ? 2_000_000
      : 20 + Math.floor(random() * 200);
    return {
      name,
      client,
      qtype,
      status,
      stage,
      upstream: stage === "upstream"
        ? (random() < 0.5 ? "default/tls://1.1.1.1" : "default/tls://9.9.9.9")
        : undefined,
      list: blocked ? (name % 2 ? "oisd" : "steven-black") : undefined,
      rule: blocked ? `||${names[name]!.slice(0, -1)}^` : undefined,
      rcode: failed ? 2 : nx ? 3 : 0,
      answer,
      size: answer === "" ? 40 + (name % 40) : 60 + (name % 120),
      durationUs,
      port: 32768 + Math.floor(random() * 28000),
    };
  };
  return { names, clients, draw };
}

/** One draw of `traffic` as the QueryEvent a worker would record at `time`. */
export function syntheticEvent(traffic: Traffic, time: number): QueryEvent {
  const d = traffic.draw();
  const event: QueryEvent = {
    time,
    node: "bench",
    clientAddress: traffic.clients[d.client]!,
    clientPort: d.port,
    transport: d.client % 7 === 0 ? "tcp" : "udp",
    groups: ["default/default"],
    qname: traffic.names[d.name]!,
    qtype: d.qtype,
    qclass: 1,
    rcode: d.rcode,
    status: d.status as QueryEvent["status"],
    stage: d.stage as QueryEvent["stage"],
    dnssecOk: d.client % 3 === 0,
    authenticData: false,
    answer: d.answer,
    responseSize: d.size,
    durationUs: d.durationUs,
  };
  if (d.upstream) event.upstream = d.upstream;
  if (d.list) event.list = d.list;
  if (d.rule) event.rule = d.rule;
  return event;
}
