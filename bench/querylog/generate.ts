/**
 * Builds (once) the benchmark's 30-day database: `count` events of
 * synthetic traffic ending now, written by BatchStore.writeEncoded in
 * batches of 50,000, so the rows and rollups are exactly what the writer
 * would store. A sidecar `<path>.json` records what is in the file; a file
 * that matches is reused.
 */
import { BatchStore } from "../../src/querylog/batch_store.ts";
import { openQueryLogDb } from "../../src/querylog/db.ts";
import { foldDomainMinutes } from "../../src/querylog/domain_hours.ts";
import type { EncodedEvent } from "../../src/querylog/encode.ts";
import {
  BLOCKED_STATUSES,
  UPSTREAM_ERROR_STATUSES,
} from "../../src/querylog/encode.ts";
import { seededRandom, syntheticTraffic } from "./synthetic_traffic.ts";
import { print } from "./print.ts";

const DAYS = 30;
const BATCH = 50_000;

export interface BigDbInfo {
  events: number;
  /** Time of the newest event. */
  end: number;
  generatedSeconds: number;
  /** SHA-256 of the schema's SQL: a changed layout means a new file. */
  layout: string;
  cached?: boolean;
}

async function layoutFingerprint(): Promise<string> {
  const db = openQueryLogDb(":memory:");
  try {
    const sql = db.prepare(
      "SELECT group_concat(sql, ';') AS s FROM sqlite_master",
    ).get()!.s;
    const digest = await crypto.subtle.digest(
      "SHA-256",
      new TextEncoder().encode(String(sql)),
    );
    return [...new Uint8Array(digest)].map((b) =>
      b.toString(16).padStart(2, "0")
    ).join("");
  } finally {
    db.close();
  }
}

export async function generateBigDb(
  path: string,
  count: number,
): Promise<BigDbInfo> {
  const sidecar = `${path}.json`;
  const layout = await layoutFingerprint();
  try {
    const info = JSON.parse(await Deno.readTextFile(sidecar)) as BigDbInfo;
    Deno.statSync(path);
    if (info.events === count && info.layout === layout) {
      return { ...info, cached: true };
    }
  } catch {
    // No usable cached database: build it.
  }
  for (const suffix of ["", "-wal", "-shm", ".json"]) {
    await Deno.remove(path + suffix).catch(() => {});
  }
  const began = performance.now();
  const end = Math.floor(Date.now() / 60_000) * 60_000;
  const start = end - DAYS * 86_400_000;
  const meanGap = (end - start) / count;
  const db = openQueryLogDb(path, { cacheKiB: 262_144 });
  try {
    const store = new BatchStore(db);
    const enc = store.encoder;
    const traffic = syntheticTraffic(42);
    const minute = Math.floor(end / 60_000);
    const label = (kind: keyof typeof enc.labels, text: string) =>
      enc.labels[kind].idOf(text, minute);
    db.exec("BEGIN");
    const nameIds = traffic.names.map((n) => enc.names.idOf(n, minute));
    const clientIds = traffic.clients.map((c) => enc.clients.idOf(c, minute));
    for (const d of enc.all()) d.writeBumps();
    db.exec("COMMIT");
    const node = label("node", "bench");
    const groups = label("groups", "default/default");
    const random = seededRandom(99);
    let time = start;
    let rows: EncodedEvent[] = [];
    for (let i = 0; i < count; i++) {
      time += -Math.log(1 - random()) * meanGap;
      const d = traffic.draw();
      const m = Math.floor(time / 60_000);
      rows.push({
        time: Math.min(Math.floor(time), end - 1),
        node,
        client: clientIds[d.client]!,
        port: d.port,
        transport: label("transport", d.client % 7 === 0 ? "tcp" : "udp"),
        qname: nameIds[d.name]!,
        qtype: d.qtype,
        qclass: 1,
        rcode: d.rcode,
        status: label("status", d.status),
        stage: label("stage", d.stage),
        upstream: d.upstream ? label("upstream", d.upstream) : null,
        list: d.list ? label("list", d.list) : null,
        rule: d.rule ? enc.labels.rule.idOf(d.rule, m) : null,
        flags: d.client % 3 === 0 ? 1 : 0,
        answer: d.answer === "" ? null : enc.answers.idOf(d.answer, m),
        size: d.size,
        durationUs: d.durationUs,
        groups,
        blocked: BLOCKED_STATUSES.has(d.status),
        upstreamError: UPSTREAM_ERROR_STATUSES.has(d.status),
      });
      if (rows.length === BATCH) {
        store.writeEncoded(rows, true, end);
        rows = [];
        if ((i + 1) % 1_000_000 === 0) {
          print(
            `  generated ${(i + 1) / 1e6}M events in ${
              ((performance.now() - began) / 1000).toFixed(0)
            } s`,
          );
        }
      }
    }
    if (rows.length > 0) store.writeEncoded(rows, true, end);
    // What the writer's minute timer would have done by now.
    while (await foldDomainMinutes(db, end) < Math.floor(end / 60_000) - 2) {
      // Up to 240 minutes per call.
    }
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    db.exec("PRAGMA optimize");
  } finally {
    db.close();
  }
  const info: BigDbInfo = {
    events: count,
    end,
    generatedSeconds: (performance.now() - began) / 1000,
    layout,
  };
  await Deno.writeTextFile(sidecar, JSON.stringify(info));
  return info;
}
