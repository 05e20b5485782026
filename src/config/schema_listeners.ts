/**
 * Node-local sections: `node` and `listeners`. Every key here is hostOnly and
 * needs a restart: addresses, certificate paths and the data directory are
 * privileged and are never settable through the API (docs/design.md#settings).
 */
import { z } from "zod";
import ipaddr from "ipaddr.js";
import {
  flag,
  hostPort,
  hostPortSchema,
  integer,
  oneOf,
  prefixList,
  text,
} from "./schema_fields.ts";

const NODE_FLAGS = { hostOnly: true, restartRequired: true } as const;

export const nodeSchema = z.strictObject({
  name: text("kudurru", {
    help: "Name of this node in the cluster, the query log and metrics",
    defaultText: "the hostname",
  }),
  dataDir: text("/var/lib/kudurru", {
    help:
      "Directory for state.db, querylog.db, local.db, lists/, keys/ and backups/",
    defaultText: "/var/lib/kudurru as root, ./data otherwise",
  }),
}).prefault({}).meta({
  help: "Identity and storage of this node",
  ...NODE_FLAGS,
});

/**
 * A TLS listener's certificate: files (re-read when they change; a pair
 * that does not match keeps the previous one serving), or with
 * `auto: selfsigned` a CA and a leaf made once and kept in `keys/`.
 */
const tlsSourceSchema = z.strictObject({
  auto: z.enum(["none", "selfsigned"]).default("none").meta({
    help:
      "selfsigned makes a CA and a certificate for this host in keys/ (for labs: clients must trust keys/dns-ca.crt)",
  }),
  certFile: z.string().default("").meta({ help: "PEM certificate chain" }),
  keyFile: z.string().default("").meta({ help: "PEM private key" }),
}).superRefine((t, ctx) => {
  const files = t.certFile !== "" || t.keyFile !== "";
  if (t.auto === "selfsigned" && files) {
    ctx.addIssue({
      code: "custom",
      message: "set either auto: selfsigned or certFile and keyFile, not both",
    });
  } else if (t.auto === "none" && (t.certFile === "" || t.keyFile === "")) {
    ctx.addIssue({
      code: "custom",
      message: files
        ? "certFile and keyFile go together: set both"
        : "set certFile and keyFile, or auto: selfsigned",
    });
  }
});

const dnsListenerSchema = z.strictObject({
  address: hostPortSchema().meta({
    kind: "address",
    help: "Address and port to listen on",
  }),
  protocols: z.array(z.enum(["udp", "tcp"])).min(1).default(["udp", "tcp"])
    .meta({ help: "Transports to serve on this address" }),
});

const dotListenerSchema = z.strictObject({
  address: hostPortSchema().meta({
    kind: "address",
    help: "Address and port to listen on",
  }),
  tls: tlsSourceSchema.meta({ help: "Certificate and key" }),
});

const dohListenerSchema = z.strictObject({
  address: hostPortSchema().meta({
    kind: "address",
    help: "Address and port to listen on",
  }),
  path: z.string().regex(
    /^\/[A-Za-z0-9._~\/-]*$/,
    "must be a URL path such as /dns-query",
  )
    .default("/dns-query").meta({
      help: "URL path of the endpoint; path/<client ID> names the client",
    }),
  tls: tlsSourceSchema.optional().meta({
    help:
      "Certificate and key; without it plain HTTP, for a trusted proxy that terminates TLS only",
  }),
  trustedProxies: prefixList([], {
    help:
      "Reverse proxies whose X-Forwarded-For names the client; required without tls, where only they may connect",
  }),
}).superRefine((l, ctx) => {
  if (l.tls === undefined && l.trustedProxies.length === 0) {
    ctx.addIssue({
      code: "custom",
      path: ["tls"],
      message:
        "plain HTTP is served only behind a proxy that terminates TLS: set tls, or list the proxy in trustedProxies",
    });
  }
});

const doqListenerSchema = dotListenerSchema.extend({
  maxConnections: z.number().int().min(1).default(1024)
    .meta({ help: "Most QUIC connections served at once" }),
});

const doh3ListenerSchema = z.strictObject({
  address: hostPortSchema().meta({
    kind: "address",
    help: "Address and port to listen on",
  }),
  path: z.string().default("/dns-query").meta({
    help: "URL path of the endpoint",
  }),
  tls: tlsSourceSchema.meta({ help: "Certificate and key" }),
  maxConnections: z.number().int().min(1).default(1024)
    .meta({ help: "Most QUIC connections served at once" }),
});

/** The default DNS listener when kudurru runs as root. */
export const ROOT_DNS_LISTENERS = [{
  address: "0.0.0.0:53",
  protocols: ["udp", "tcp"],
}];
/** The default DNS listener otherwise: :53 needs root or CAP_NET_BIND_SERVICE. */
export const USER_DNS_LISTENERS = [{
  address: "127.0.0.1:5353",
  protocols: ["udp", "tcp"],
}];

const httpListener = (address: string, help: string) =>
  z.strictObject({
    address: hostPort(address, { help }),
  }).prefault({});

const listenersObject = z.strictObject({
  dns: z.array(dnsListenerSchema).default(
    ROOT_DNS_LISTENERS as z.input<typeof dnsListenerSchema>[] as never,
  ).meta({
    kind: "list of listeners",
    help: "Plain DNS listeners (Do53) over UDP and TCP",
    defaultText: "0.0.0.0:53 as root, 127.0.0.1:5353 otherwise (udp and tcp)",
  }),
  dot: z.array(dotListenerSchema).default([]).meta({
    kind: "list of listeners",
    help: "DNS-over-TLS listeners (RFC 7858, ALPN dot), usually on port 853",
  }),
  doh: z.array(dohListenerSchema).default([]).meta({
    kind: "list of listeners",
    help:
      "DNS-over-HTTPS listeners (RFC 8484, HTTP/2 and HTTP/1.1), usually on port 443",
  }),
  doq: z.array(doqListenerSchema).default([]).meta({
    kind: "list of listeners",
    help:
      "DNS-over-QUIC listeners (RFC 9250, ALPN doq), usually on UDP port 853",
  }),
  doh3: z.array(doh3ListenerSchema).default([]).meta({
    kind: "list of listeners",
    help:
      "DNS-over-HTTP/3 listeners (ALPN h3): not served (Deno has no HTTP/3 server); kudurru refuses to start with one",
  }),
  clientIdDomain: text("", {
    help:
      'Domain under which a DoT or DoQ server name names the client: with "dns.example.net", phone.dns.example.net is client ID phone',
  }),
  proxyProtocolFrom: prefixList([], {
    help:
      "Peers allowed to send PROXYv2 headers; exact /32 or /128 entries unless " +
      "proxyProtocolSecretFile is set, never a LAN /24",
  }),
  proxyProtocolSecretFile: text("", {
    help:
      "File holding the PROXYv2 TLV 0xE0 secret shared with dnsdist (at least 32 bytes)",
  }),
  api: z.strictObject({
    address: hostPort("0.0.0.0:8080", {
      help: "Address of the API and web UI",
    }),
    tls: z.strictObject({
      auto: oneOf(["none", "selfsigned"], "none", {
        help:
          "none serves plain HTTP unless certFile is set; selfsigned makes a certificate",
      }),
      certFile: text("", { help: "PEM certificate chain for the API and UI" }),
      keyFile: text("", { help: "PEM private key for the API and UI" }),
    }).prefault({}),
    pathPrefix: text("", {
      help: 'URL prefix when served behind a reverse proxy, such as "/dns"',
    }),
    cpuPercent: integer(5, 1, 100, {
      help:
        "Share of the main thread's time the API may keep busy, averaged over seconds (5: 50 ms a second, after a 250 ms burst); " +
        "past it requests wait, so DNS keeps its CPU; it binds only while DNS answers 1,000 queries a second or more (a quiet server's spare time is the API's); raise it on a host with CPUs to spare, 100 turns the limit off",
    }),
  }).prefault({}),
  ops: httpListener(
    "0.0.0.0:8081",
    "Address of the health and readiness probes",
  ),
  metrics: httpListener(
    "0.0.0.0:9153",
    "Address of the Prometheus metrics endpoint",
  ),
  internal: z.strictObject({
    address: hostPort("0.0.0.0:8082", {
      help: "Address of the node-to-node listener (always TLS)",
    }),
    tokenFile: text("", {
      help:
        "File holding the node-to-node token; derived from the encryption key when empty",
    }),
    tls: z.strictObject({
      certFile: text("", {
        help: "Node certificate; derived from the encryption key when empty",
      }),
      keyFile: text("", {
        help: "Node private key; derived from the encryption key when empty",
      }),
      caFile: text("", {
        help: "CA that signs node certificates; derived when empty",
      }),
      serverName: text("", { help: "Name expected in peer certificates" }),
    }).prefault({}),
  }).prefault({}),
  sockets: integer(1, 0, 64, {
    help:
      "Sockets per TCP DNS listener (and per UDP one with ffiSockets), each in a worker with its own pipeline and cache; 0 = one per CPU, at most 8",
  }),
  ffiSockets: flag(false, {
    help:
      "Opt-in fast UDP sockets through FFI (recvmmsg/sendmmsg, SO_REUSEPORT with several sockets); 64-bit Linux, needs --allow-ffi",
  }),
});

const DOMAIN =
  /^(?=.{1,253}$)[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,62})(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,62}))*\.?$/;

function isExactHost(entry: string): boolean {
  if (!entry.includes("/")) return true;
  const [addr, bits] = ipaddr.parseCIDR(entry);
  return bits === (addr.kind() === "ipv4" ? 32 : 128);
}

/** One socket a listener binds: "tcp" or "udp", host and port. */
interface Binding {
  transport: "tcp" | "udp";
  host: string;
  port: number;
  path: (string | number)[];
}

/** The sockets the listeners take (DNS and encrypted DNS, probes, metrics). */
function bindingsOf(l: z.infer<typeof listenersObject>): Binding[] {
  const out: Binding[] = [];
  const add = (
    transport: Binding["transport"],
    address: string,
    path: Binding["path"],
  ) => {
    const at = address.lastIndexOf(":");
    const host = address.slice(0, at).replace(/^\[|\]$/g, "").toLowerCase();
    out.push({ transport, host, port: Number(address.slice(at + 1)), path });
  };
  l.dns.forEach((d, i) => {
    for (const t of new Set(d.protocols)) add(t, d.address, ["dns", i]);
  });
  l.dot.forEach((d, i) => add("tcp", d.address, ["dot", i]));
  l.doh.forEach((d, i) => add("tcp", d.address, ["doh", i]));
  l.doq.forEach((d, i) => add("udp", d.address, ["doq", i]));
  add("tcp", l.ops.address, ["ops", "address"]);
  add("tcp", l.metrics.address, ["metrics", "address"]);
  return out;
}

/** ".ops.address", ".dns[0]": a setting's path as the errors print it. */
function pathText(path: Binding["path"]): string {
  return path.map((p) => typeof p === "number" ? `[${p}]` : `.${p}`).join("");
}

/**
 * Both would bind the same port: the same address, or one is its family's
 * wildcard. Port 0 (any free port) never clashes; neither do 0.0.0.0 and
 * [::], which clash only where IPv6 sockets also take IPv4 (Linux's
 * default; the bind error then explains it).
 */
function clash(a: Binding, b: Binding): boolean {
  if (a.transport !== b.transport || a.port !== b.port || a.port === 0) {
    return false;
  }
  if (a.host === b.host) return true;
  const v4 = (h: string) => ipaddr.IPv4.isValidFourPartDecimal(h);
  const v6 = (h: string) => ipaddr.IPv6.isValid(h);
  const wildcardOver = (w: Binding, o: Binding) =>
    (w.host === "0.0.0.0" && v4(o.host)) || (w.host === "::" && v6(o.host));
  return wildcardOver(a, b) || wildcardOver(b, a);
}

export const listenersSchema = listenersObject.superRefine((l, ctx) => {
  // Caught here, a clash names both settings; at bind time it would read
  // as "another program holds the port".
  const bindings = bindingsOf(l);
  bindings.forEach((b, i) => {
    const earlier = bindings.slice(0, i).find((a) => clash(a, b));
    if (earlier === undefined) return;
    ctx.addIssue({
      code: "custom",
      path: b.path,
      message:
        `port ${b.port} (${b.transport.toUpperCase()}) is also taken by listeners${
          pathText(earlier.path)
        }: give each listener its own address or port`,
    });
  });
  if (l.doh3.length > 0) {
    ctx.addIssue({
      code: "custom",
      path: ["doh3"],
      message:
        "not served: Deno has no HTTP/3 server; serve DNS over HTTPS with listeners.doh (HTTP/2 and HTTP/1.1), or over QUIC with listeners.doq",
    });
  }
  if (l.clientIdDomain !== "" && !DOMAIN.test(l.clientIdDomain)) {
    ctx.addIssue({
      code: "custom",
      path: ["clientIdDomain"],
      message: 'must be a domain name such as "dns.example.net"',
    });
  }
  if (l.proxyProtocolSecretFile !== "") return;
  l.proxyProtocolFrom.forEach((entry, i) => {
    if (ipaddr.isValidCIDR(entry) && !isExactHost(entry)) {
      ctx.addIssue({
        code: "custom",
        path: ["proxyProtocolFrom", i],
        message:
          "a prefix wider than one address needs proxyProtocolSecretFile; " +
          "list exact /32 or /128 addresses instead",
      });
    }
  });
}).prefault({}).meta({ help: "Where kudurru listens", ...NODE_FLAGS });
