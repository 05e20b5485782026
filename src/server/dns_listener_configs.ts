/**
 * The DNS listeners to start, from `listeners`: plain DNS (`dns`), DoT,
 * DoH and DoQ, the encrypted ones with their certificates (one reloader
 * per pair, src/tls/dns_certificates.ts), and whom PROXYv2 headers are
 * believed from.
 */
import type { Config } from "../config/schema.ts";
import type { DnsListenerConfig } from "../listeners/listeners.ts";
import type { DnsCertificates } from "../tls/dns_certificates.ts";
import {
  ProxyTrust,
  type ProxyTrustInit,
  readProxySecret,
} from "../listeners/proxy_trust.ts";

/** True when a listener needs a certificate. */
export function servesTls(listeners: Config["listeners"]): boolean {
  return listeners.dot.length > 0 || listeners.doq.length > 0 ||
    listeners.doh.some((d) => d.tls !== undefined);
}

/**
 * One config per listener.
 *
 * @throws {CertificateError} when a listener's certificate cannot be served
 */
export async function dnsListenerConfigs(
  listeners: Config["listeners"],
  certificates: DnsCertificates | undefined,
): Promise<DnsListenerConfig[]> {
  const feed = (tls: Config["listeners"]["dot"][number]["tls"]) => {
    if (certificates === undefined) {
      throw new Error("a TLS listener needs the certificates opened");
    }
    return certificates.reloaderFor(tls);
  };
  const out: DnsListenerConfig[] = listeners.dns.map((d) => ({
    address: d.address,
    protocols: d.protocols,
  }));
  for (const d of listeners.dot) {
    out.push({
      address: d.address,
      protocols: ["dot"],
      certificates: await feed(d.tls),
    });
  }
  for (const d of listeners.doh) {
    out.push({
      address: d.address,
      protocols: ["doh"],
      ...(d.tls !== undefined && { certificates: await feed(d.tls) }),
      doh: { path: d.path, trustedProxies: d.trustedProxies },
    });
  }
  for (const d of listeners.doq) {
    out.push({
      address: d.address,
      protocols: ["doq"],
      certificates: await feed(d.tls),
      quicMaxConnections: d.maxConnections,
    });
  }
  return out;
}

/**
 * `{ proxy }` for startDnsListeners when `listeners.proxyProtocolFrom`
 * lists peers, with the secret read from its file; `{}` otherwise, so
 * listeners without it never look for a header.
 *
 * @throws {ProxySecretError | ProxyTrustError} saying what to fix
 */
export async function proxyTrustInit(
  listeners: Config["listeners"],
): Promise<{ proxy?: ProxyTrustInit }> {
  if (listeners.proxyProtocolFrom.length === 0) return {};
  const init: ProxyTrustInit = {
    from: listeners.proxyProtocolFrom,
    ...(listeners.proxyProtocolSecretFile !== "" && {
      secret: await readProxySecret(listeners.proxyProtocolSecretFile),
    }),
  };
  // Checked here, where a mistake stops the start with its reason, rather
  // than in each listener Worker.
  new ProxyTrust(init);
  return { proxy: init };
}
