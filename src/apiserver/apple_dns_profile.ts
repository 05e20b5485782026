/**
 * An Apple configuration profile (`.mobileconfig`) that sets an iPhone's,
 * iPad's or Mac's DNS to this server over HTTPS or TLS: one
 * `com.apple.dnsSettings.managed` payload, and with a private CA (the
 * self-signed one of `tls: { auto: selfsigned }`) a
 * `com.apple.security.root` payload the device can be told to trust. The
 * identifiers and UUIDs are derived from the server and client ID, so
 * installing the profile again replaces it rather than adding another.
 */
import { Buffer } from "node:buffer";
import { X509Certificate } from "node:crypto";

export interface DnsProfileOptions {
  protocol: "HTTPS" | "TLS";
  /** The server's host name, as the device reaches it. */
  server: string;
  /** HTTPS: the endpoint's URL, client ID included. */
  serverUrl?: string;
  /** TLS: the server name, client ID label included. */
  serverName?: string;
  /** PEM of a CA the device must trust for the server's certificate. */
  caPem?: string;
  /** What the profile is for, in its display name ("phone"). */
  clientId?: string;
}

/** The profile as XML (a property list, unsigned). */
export async function renderDnsProfile(
  opts: DnsProfileOptions,
): Promise<string> {
  const seed = `${opts.protocol}\n${opts.server}\n${opts.clientId ?? ""}`;
  const id = `kudurru.dns.${reverseDomain(opts.server)}${
    opts.clientId ? `.${opts.clientId}` : ""
  }`;
  const title = `kudurru DNS (${opts.server}${
    opts.clientId ? `, ${opts.clientId}` : ""
  })`;
  const settings = opts.protocol === "HTTPS"
    ? { DNSProtocol: "HTTPS", ServerURL: opts.serverUrl! }
    : { DNSProtocol: "TLS", ServerName: opts.serverName! };
  const payloads: Plist[] = [{
    PayloadType: "com.apple.dnsSettings.managed",
    PayloadIdentifier: `${id}.settings`,
    PayloadUUID: await uuidOf(`${seed}\nsettings`),
    PayloadVersion: 1,
    PayloadDisplayName: title,
    DNSSettings: settings,
  }];
  if (opts.caPem !== undefined) {
    const der = new Uint8Array(new X509Certificate(opts.caPem).raw);
    payloads.push({
      PayloadType: "com.apple.security.root",
      PayloadIdentifier: `${id}.ca`,
      PayloadUUID: await uuidOf(`${seed}\nca`),
      PayloadVersion: 1,
      PayloadDisplayName: `${opts.server} DNS CA`,
      PayloadContent: der,
    });
  }
  const profile: Plist = {
    PayloadType: "Configuration",
    PayloadIdentifier: id,
    PayloadUUID: await uuidOf(seed),
    PayloadVersion: 1,
    PayloadDisplayName: title,
    PayloadDescription:
      `Sends this device's DNS queries to ${opts.server} over ${
        opts.protocol === "HTTPS" ? "HTTPS (DoH)" : "TLS (DoT)"
      }.`,
    PayloadContent: payloads,
  };
  return '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n' +
    `<plist version="1.0">\n${plist(profile, "")}\n</plist>\n`;
}

type Plist = string | number | Uint8Array | Plist[] | { [key: string]: Plist };

function plist(value: Plist, indent: string): string {
  const inner = indent + "  ";
  if (typeof value === "string") {
    return `${indent}<string>${xml(value)}</string>`;
  }
  if (typeof value === "number") return `${indent}<integer>${value}</integer>`;
  if (value instanceof Uint8Array) {
    return `${indent}<data>${Buffer.from(value).toString("base64")}</data>`;
  }
  if (Array.isArray(value)) {
    return `${indent}<array>\n${
      value.map((v) => plist(v, inner)).join("\n")
    }\n${indent}</array>`;
  }
  return `${indent}<dict>\n${
    Object.entries(value).map(([k, v]) =>
      `${inner}<key>${xml(k)}</key>\n${plist(v, inner)}`
    ).join("\n")
  }\n${indent}</dict>`;
}

function xml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(
    />/g,
    "&gt;",
  ).replace(/"/g, "&quot;");
}

/** "dns.example.net" → "net.example.dns" (Apple's identifier style). */
function reverseDomain(name: string): string {
  return name.toLowerCase().split(".").filter((l) => l !== "").reverse()
    .join(".");
}

/** A UUID (version 8, RFC 9562 §5.8) from the SHA-256 of `seed`. */
async function uuidOf(seed: string): Promise<string> {
  const hash = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(seed)),
  ).slice(0, 16);
  hash[6] = (hash[6]! & 0x0f) | 0x80;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join(
    "",
  );
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${
    hex.slice(16, 20)
  }-${hex.slice(20)}`.toUpperCase();
}
