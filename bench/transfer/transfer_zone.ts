/**
 * The transfer benchmark's zone: `transfer.test.` with exactly `records`
 * records (SOA and apex NS included), as kudurru objects and as the same
 * zone rendered for Knot and NSD. Per host h<i>: A on every one, AAAA on
 * every fourth, TXT (an SPF string) on every tenth, MX on every twentieth,
 * and a CNAME www<i> to every tenth.
 */
import type { DNSZone } from "../../src/api/v1alpha1/dnszone.ts";
import {
  type DNSRecordSet,
  type Endpoint,
  MAX_ENDPOINTS,
} from "../../src/api/v1alpha1/dnsrecordset.ts";
import { renderZoneFile } from "../../tests/interop/zone_file.ts";

export const TRANSFER_ZONE = "transfer.test.";
const ZONE_OBJECT = "transfer-test";

/** The zone's records besides the endpoints: the SOA and the apex NS. */
const APEX_RECORDS = 2;

/** The record the one-change IXFR replaces: h1's address. */
export const CHANGED_NAME = "h1.transfer.test";
/** h1's address after the change. */
export const CHANGED_ADDRESS = "198.51.100.1";

/**
 * The DNSZone, open to transfers from loopback (RFC 5936 §6 leaves who may
 * transfer to the server's policy); `serial` is kept in status for the
 * zone file only (kudurru stamps its own).
 */
export function transferZone(serial = 1): DNSZone {
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "DNSZone",
    metadata: { name: ZONE_OBJECT },
    spec: {
      zoneName: TRANSFER_ZONE,
      type: "primary",
      soa: {
        mname: "ns1.transfer.test.",
        rname: "hostmaster.transfer.test.",
        refresh: 3600,
        retry: 900,
        expire: 1209600,
        minimum: 300,
      },
      nameservers: ["ns1.transfer.test."],
      defaultTTL: 300,
      policy: {
        queryAccess: "allow",
        zoneTransfer: "useNetworkACL",
        transferACL: ["127.0.0.1"],
        notify: "none",
        update: "deny",
      },
    },
    status: { serial },
  };
}

function ipv4(i: number): string {
  return `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

/** The endpoints of one host, in the order they are added. */
function hostEndpoints(i: number): Endpoint[] {
  const name = `h${i}.transfer.test`;
  const out: Endpoint[] = [
    { dnsName: name, recordType: "A", targets: [ipv4(i)] },
  ];
  if (i % 4 === 0) {
    out.push({
      dnsName: name,
      recordType: "AAAA",
      targets: [
        `2001:db8::${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}`,
      ],
    });
  }
  if (i % 10 === 5) {
    out.push({
      dnsName: name,
      recordType: "TXT",
      targets: [`v=spf1 ip4:${ipv4(i)} -all`],
    });
  }
  if (i % 20 === 0) {
    out.push({
      dnsName: name,
      recordType: "MX",
      targets: [`10 h${i + 1}.transfer.test`],
    });
  }
  if (i % 10 === 0) {
    out.push({
      dnsName: `www${i}.transfer.test`,
      recordType: "CNAME",
      targets: [name],
    });
  }
  return out;
}

/**
 * Endpoints of one target each, so that with the SOA and the apex NS the
 * zone holds exactly `records` records; `changed` gives h1 its new address.
 */
export function transferEndpoints(
  records: number,
  changed = false,
): Endpoint[] {
  const want = records - APEX_RECORDS;
  if (want < 2) {
    throw new RangeError(`a zone of ${records} records is too small`);
  }
  const out: Endpoint[] = [
    { dnsName: "ns1.transfer.test", recordType: "A", targets: ["10.255.0.1"] },
  ];
  for (let i = 0; out.length < want; i++) {
    for (const endpoint of hostEndpoints(i)) {
      if (out.length === want) break;
      out.push(endpoint);
    }
  }
  if (changed) {
    const at = out.findIndex((e) =>
      e.dnsName === CHANGED_NAME && e.recordType === "A"
    );
    out[at] = { ...out[at]!, targets: [CHANGED_ADDRESS] };
  }
  return out;
}

/** The endpoints split into DNSRecordSets of at most MAX_ENDPOINTS each. */
export function transferRecordSets(
  records: number,
  changed = false,
): DNSRecordSet[] {
  const all = transferEndpoints(records, changed);
  const sets: DNSRecordSet[] = [];
  for (let at = 0; at < all.length; at += MAX_ENDPOINTS) {
    sets.push({
      apiVersion: "kudurru.io/v1alpha1",
      kind: "DNSRecordSet",
      metadata: { name: `transfer-${sets.length}`, namespace: "bench" },
      spec: {
        zoneRef: { name: ZONE_OBJECT },
        endpoints: all.slice(at, at + MAX_ENDPOINTS),
      },
    });
  }
  return sets;
}

/** Record sets per objects.d file: ~1 MB of YAML, under its 4 MiB cap. */
const SETS_PER_FILE = 10;

/**
 * The record sets as objects.d files (`records-000.yaml`, …); the first
 * holds h1, so the one-record change rewrites that file alone.
 */
export function transferObjectFiles(
  records: number,
  changed = false,
): Record<string, DNSRecordSet[]> {
  const sets = transferRecordSets(records, changed);
  const files: Record<string, DNSRecordSet[]> = {};
  for (let at = 0; at < sets.length; at += SETS_PER_FILE) {
    const name = `records-${String(at / SETS_PER_FILE).padStart(3, "0")}.yaml`;
    files[name] = sets.slice(at, at + SETS_PER_FILE);
  }
  return files;
}

/** The same zone as a zone file, at `serial`, for Knot and NSD. */
export function transferZoneFile(
  records: number,
  serial: number,
  changed = false,
): string {
  return renderZoneFile(
    transferZone(serial),
    transferRecordSets(records, changed),
  );
}
