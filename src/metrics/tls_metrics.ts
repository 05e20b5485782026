/**
 * When the certificates of the DNS listeners expire, so an alert can fire
 * before clients start refusing them (src/tls/dns_certificates.ts).
 */
import client from "prom-client";
import type { Registry } from "./registry.ts";

/** What the gauge reads at each scrape. */
export type CertificateExpiries = () => { certFile: string; notAfter: Date }[];

export function createTlsMetrics(
  registry: Registry,
  expiries: CertificateExpiries,
): void {
  new client.Gauge({
    name: "kudurru_tls_certificate_expiry_timestamp_seconds",
    help:
      "When the certificate the DoT, DoH and DoQ listeners serve expires (Unix seconds), by certificate file.",
    labelNames: ["certificate"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { certFile, notAfter } of expiries()) {
        this.set({ certificate: certFile }, notAfter.getTime() / 1000);
      }
    },
  });
}
