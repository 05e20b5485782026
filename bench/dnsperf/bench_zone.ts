/**
 * The benchmark zone: ~10,000 names under bench.test. (A for every name,
 * AAAA for every second, a CNAME for every tenth, MX for every twentieth)
 * as kudurru objects, and a dnsperf query file that mixes them.
 */
import type { DNSZone } from "../../src/api/v1alpha1/dnszone.ts";
import {
  type DNSRecordSet,
  type Endpoint,
  MAX_ENDPOINTS,
} from "../../src/api/v1alpha1/dnsrecordset.ts";

export const BENCH_ZONE = "bench.test.";
const NAMES = 10_000;

export function benchZone(): DNSZone {
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "DNSZone",
    metadata: { name: "bench-test" },
    spec: {
      zoneName: BENCH_ZONE,
      type: "primary",
      soa: {
        mname: "ns1.bench.test.",
        rname: "hostmaster.bench.test.",
        refresh: 3600,
        retry: 900,
        expire: 1209600,
        minimum: 300,
      },
      nameservers: ["ns1.bench.test."],
      defaultTTL: 300,
      policy: {
        queryAccess: "allow",
        zoneTransfer: "deny",
        notify: "none",
        update: "deny",
      },
    },
  };
}

function ipv4(i: number): string {
  return `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

function endpoints(): Endpoint[] {
  const out: Endpoint[] = [
    { dnsName: "ns1.bench.test", recordType: "A", targets: ["10.255.0.1"] },
  ];
  for (let i = 0; i < NAMES; i++) {
    const name = `h${i}.bench.test`;
    out.push({ dnsName: name, recordType: "A", targets: [ipv4(i)] });
    if (i % 2 === 0) {
      out.push({
        dnsName: name,
        recordType: "AAAA",
        targets: [`2001:db8::${i.toString(16)}`],
      });
    }
    if (i % 10 === 0) {
      out.push({
        dnsName: `c${i}.bench.test`,
        recordType: "CNAME",
        targets: [name],
      });
    }
    if (i % 20 === 0) {
      out.push({
        dnsName: name,
        recordType: "MX",
        targets: [`10 h${(i + 1) % NAMES}.bench.test`],
      });
    }
  }
  return out;
}

/** The record sets, split to respect the per-object endpoint limit. */
export function benchRecordSets(): DNSRecordSet[] {
  const all = endpoints();
  const sets: DNSRecordSet[] = [];
  for (let at = 0; at < all.length; at += MAX_ENDPOINTS) {
    sets.push({
      apiVersion: "kudurru.io/v1alpha1",
      kind: "DNSRecordSet",
      metadata: { name: `bench-${sets.length}`, namespace: "bench" },
      spec: {
        zoneRef: { name: "bench-test" },
        endpoints: all.slice(at, at + MAX_ENDPOINTS),
      },
    });
  }
  return sets;
}

/**
 * A dnsperf query file: mostly A hits, then AAAA, CNAME, MX, NODATA and
 * NXDOMAIN, in a fixed pseudo-random order so every server gets the same.
 */
export function benchQueryFile(lines = 20_000): string {
  let seed = 12345;
  // The high bits of the generator: its low bits repeat with short periods,
  // and `% NAMES` of the whole value picked only 861 names out of 10,000
  // (the file asked the same 2,015 questions over and over until 2026-11-30).
  const next = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed >>> 15;
  };
  const out: string[] = [];
  for (let n = 0; n < lines; n++) {
    const i = next() % NAMES;
    const kind = next() % 20;
    if (kind < 10) out.push(`h${i}.bench.test A`);
    else if (kind < 13) out.push(`h${i - (i % 2)}.bench.test AAAA`);
    else if (kind < 15) out.push(`c${i - (i % 10)}.bench.test A`);
    else if (kind < 16) out.push(`h${i - (i % 20)}.bench.test MX`);
    else if (kind < 18) out.push(`h${i}.bench.test TXT`);
    else out.push(`nx${i}.bench.test A`);
  }
  return out.join("\n") + "\n";
}
