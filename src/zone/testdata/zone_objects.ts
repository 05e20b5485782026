/**
 * DNSZone and DNSRecordSet objects for the content tests: one primary zone,
 * example.org., and record sets pointing at it.
 */
import type { DNSZone, DNSZoneSpec } from "../../api/v1alpha1/dnszone.ts";
import type {
  DNSRecordSet,
  Endpoint,
} from "../../api/v1alpha1/dnsrecordset.ts";

/** The build time of every test; endpoints expire relative to it. */
export const NOW = new Date("2030-01-01T00:00:00Z");

/** The DNSZone example-org for example.org., primary, defaultTTL 300, two nameservers. */
export function zone(
  spec: Partial<DNSZoneSpec> = {},
  serial?: number,
): DNSZone {
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "DNSZone",
    metadata: { name: "example-org" },
    spec: {
      zoneName: "example.org.",
      type: "primary",
      defaultTTL: 300,
      policy: {
        queryAccess: "allow",
        zoneTransfer: "deny",
        notify: "none",
        update: "deny",
      },
      nameservers: ["ns1.example.org.", "ns2.example.org."],
      ...spec,
    },
    ...(serial === undefined ? {} : { status: { serial } }),
  };
}

/** A DNSRecordSet of example-org in namespace apps, created 2029-01-01. */
export function recordSet(
  name: string,
  endpoints: Endpoint[],
  opts: { namespace?: string; created?: string; zoneRef?: string } = {},
): DNSRecordSet {
  return {
    apiVersion: "kudurru.io/v1alpha1",
    kind: "DNSRecordSet",
    metadata: {
      name,
      namespace: opts.namespace ?? "apps",
      creationTimestamp: opts.created ?? "2029-01-01T00:00:00Z",
    },
    spec: {
      zoneRef: { name: opts.zoneRef ?? "example-org" },
      endpoints,
    },
  };
}

/** One endpoint. */
export function ep(
  dnsName: string,
  recordType: string,
  targets: string[],
  extra: Partial<Endpoint> = {},
): Endpoint {
  return { dnsName, recordType, targets, ...extra };
}
