/**
 * Technitium forwarder addresses as kudurru upstream server strings. One
 * address format serves the settings' `forwarders`, the `FWD` record and
 * the Advanced Forwarding app (Technitium's API documentation, "Name
 * Server Address Format"): `1.1.1.1`, `8.8.8.8:53`, `dns.quad9.net:853`,
 * `cloudflare-dns.com (1.1.1.1)` (a name with the address to use for it),
 * `https://cloudflare-dns.com/dns-query (1.1.1.1)`, with the transport
 * given apart (`Udp|Tcp|Tls|Https|Quic`). kudurru's forms are those of
 * src/config/upstream_server.ts; a pinned address keeps the name as the
 * TLS name (`tls://1.1.1.1#cloudflare-dns.com`), so nothing needs the
 * bootstrap resolver that Technitium avoided.
 */
import { parseUpstreamServer } from "../config/upstream_server.ts";
import { isIpAddress } from "../dns/ip_text.ts";

/** A forwarder as kudurru takes it, or why it cannot. */
export type ForwarderResult = { server: string } | { why: string };

/** "host[:port]" or "[v6][:port]" or bare v6, split. */
function hostAndPort(text: string): { host: string; port?: string } {
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracket) {
    return bracket[2] === undefined
      ? { host: bracket[1]! }
      : { host: bracket[1]!, port: bracket[2] };
  }
  if (isIpAddress(text)) return { host: text };
  const colon = /^([^:]+):(\d+)$/.exec(text);
  return colon ? { host: colon[1]!, port: colon[2]! } : { host: text };
}

function authority(host: string, port: string | undefined): string {
  const h = host.includes(":") ? `[${host}]` : host;
  return port === undefined ? h : `${h}:${port}`;
}

/**
 * `address` spoken over `protocol` as a kudurru server string.
 * `this-server` (Technitium resolving by itself) and DNS-over-QUIC have no
 * counterpart.
 */
export function forwarderServer(
  address: string,
  protocol: string,
): ForwarderResult {
  const text = address.trim();
  const proto = protocol.toLowerCase();
  if (text.toLowerCase() === "this-server") {
    return {
      why:
        "this-server means Technitium resolves the names itself; a kudurru upstream group forwards only",
    };
  }
  if (proto === "quic") {
    return {
      why:
        "DNS-over-QUIC: kudurru speaks udp, tcp://, tls:// and https:// to upstreams",
    };
  }
  const pinned = /^(.*?)\s*\(([^)]+)\)$/.exec(text);
  const named = pinned ? pinned[1]! : text;
  const ip = pinned ? hostAndPort(pinned[2]!.trim()) : undefined;
  let server: string;
  if (proto === "https") {
    const url = /^https:\/\//i.test(named)
      ? named
      : `https://${named}/dns-query`;
    if (ip === undefined) server = url;
    else {
      // The address in brackets stands for the URL's host; the host stays
      // the TLS name (the "#name" of src/config/upstream_server.ts).
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return { why: `"${named}" is not a URL` };
      }
      const tlsName = parsed.hostname;
      parsed.hostname = ip.host.includes(":") ? `[${ip.host}]` : ip.host;
      server = isIpAddress(tlsName)
        ? parsed.toString()
        : `${parsed.toString()}#${tlsName}`;
    }
  } else if (proto === "udp" || proto === "tcp" || proto === "tls") {
    const name = hostAndPort(named);
    const port = ip?.port ?? name.port;
    const host = ip?.host ?? name.host;
    const scheme = proto === "udp" ? "" : `${proto}://`;
    const tlsName = proto === "tls" && ip !== undefined &&
        !isIpAddress(name.host)
      ? `#${name.host}`
      : "";
    server = `${scheme}${authority(host, port)}${tlsName}`;
  } else {
    return { why: `unknown forwarder protocol "${protocol}"` };
  }
  try {
    parseUpstreamServer(server);
  } catch (error) {
    return { why: error instanceof Error ? error.message : String(error) };
  }
  return { server };
}

/** One `FWD` record's data (Technitium's DnsForwarderRecordData text form). */
export interface FwdRecord {
  protocol: string;
  forwarder: string;
  dnssecValidation: boolean;
  /** `Http` or `Socks5` with its address; undefined for none or the default proxy. */
  proxy?: string;
  priority: number;
}

/**
 * Reads `<protocol> <forwarder> <dnssecValidation> <proxyType>
 * [<proxy> <port> <user|-> <pass|->] <priority>`; undefined when it is
 * not that.
 */
export function parseFwd(words: string[]): FwdRecord | undefined {
  const unquote = (w: string) => w.replace(/^"(.*)"$/, "$1");
  const joined = words.map(unquote);
  // "name (address)" is one forwarder, though a blank splits it in two
  // words and a zone file lexer takes the brackets for line grouping: a
  // third word that is not the dnssecValidation flag is the address.
  const third = joined[2];
  if (third !== undefined && !/^(true|false)$/i.test(third)) {
    joined.splice(1, 2, `${joined[1]} (${third.replace(/^\(|\)$/g, "")})`);
  }
  const [protocol, forwarder, dnssec, proxyType, ...rest] = joined;
  if (protocol === undefined || forwarder === undefined) return undefined;
  const withProxy = /^(http|socks5)$/i.test(proxyType ?? "");
  const priorityWord = withProxy ? rest[4] : rest[0];
  const priority = Number(priorityWord ?? "0");
  return {
    protocol,
    forwarder,
    dnssecValidation: /^true$/i.test(dnssec ?? ""),
    ...(withProxy &&
      { proxy: `${proxyType} ${rest[0] ?? ""}:${rest[1] ?? ""}` }),
    priority: Number.isFinite(priority) ? priority : 0,
  };
}
