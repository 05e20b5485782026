/**
 * Builds (once) the benchmark's 30-day database: `count` events of
 * synthetic traffic ending now, packed as a worker packs them and written
 * by BatchStore.writeEvents in batches of 50,000, so the chunks and rollups
 * are exactly what the writer would store. A sidecar `<path>.json` records what is in the file; a file
 * that matches is reused.
 */
import { BatchStore } from "../../src/querylog/batch_store.ts";
import { openQueryLogDb } from "../../src/querylog/db.ts";
import { foldDomainMinutes } from "../../src/querylog/domain_hours.ts";
import { createEventFilter } from "../../src/querylog/event_filter.ts";
import { querylogSchema } from "../../src/config/schema_resolver.ts";
import { hexOf } from "../../src/dns/hex.ts";
import { QueryEventPacker } from "../../src/pipeline/query_event_pack.ts";
import { QueryEventReceiver } from "../../src/pipeline/query_event_receiver.ts";
import {
  seededRandom,
  syntheticEvent,
  syntheticTraffic,
} from "./synthetic_traffic.ts";
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
    return hexOf(new Uint8Array(digest));
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
    const filter = createEventFilter(querylogSchema.parse({}));
    const traffic = syntheticTraffic(42);
    const random = seededRandom(99);
    let time = start;
    // As a listener worker and the main thread do it.
    const packer = new QueryEventPacker(BATCH);
    const receiver = new QueryEventReceiver();
    const write = () => {
      const batch = receiver.receive(packer.take())!;
      store.writeEvents([{ batch, from: 0, to: batch.count }], filter, end);
    };
    for (let i = 0; i < count; i++) {
      time += -Math.log(1 - random()) * meanGap;
      packer.add(syntheticEvent(traffic, Math.min(Math.floor(time), end - 1)));
      if (packer.count === BATCH) {
        write();
        if ((i + 1) % 1_000_000 === 0) {
          print(
            `  generated ${(i + 1) / 1e6}M events in ${
              ((performance.now() - began) / 1000).toFixed(0)
            } s`,
          );
        }
      }
    }
    if (packer.count > 0) write();
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
