import assert from "node:assert/strict";
import {
  DnsmasqImportError,
  type DnsmasqServers,
  parseDnsmasqServers,
} from "./dnsmasq_servers.ts";

const none: DnsmasqServers = {
  groups: {},
  conditional: {},
  localOnly: [],
  ignored: 0,
};

Deno.test("parseDnsmasqServers maps forwarding lines to upstreams fragments", async (t) => {
  const cases: {
    name: string;
    lines: string[];
    want: Partial<DnsmasqServers>;
  }[] = [
    {
      name: "conditional server",
      lines: ["server=/corp.example/10.0.0.5"],
      want: {
        groups: { "corp-example": { servers: ["10.0.0.5"] } },
        conditional: { "corp.example.": "corp-example" },
      },
    },
    {
      name: "conditional server with a port",
      lines: ["server=/corp.example/10.0.0.5#5353"],
      want: {
        groups: { "corp-example": { servers: ["10.0.0.5:5353"] } },
        conditional: { "corp.example.": "corp-example" },
      },
    },
    {
      name: "IPv6 server with a port",
      lines: ["server=/corp.example/fd00::53#5353"],
      want: {
        groups: { "corp-example": { servers: ["[fd00::53]:5353"] } },
        conditional: { "corp.example.": "corp-example" },
      },
    },
    {
      name: "several domains share one group",
      lines: ["server=/a.example/B.Example/10.0.0.6"],
      want: {
        groups: { "a-example": { servers: ["10.0.0.6"] } },
        conditional: { "a.example.": "a-example", "b.example.": "a-example" },
      },
    },
    {
      name: "a domain on two lines gets both servers",
      lines: ["server=/corp.example/10.0.0.5", "server=/corp.example/10.0.0.6"],
      want: {
        groups: { "corp-example": { servers: ["10.0.0.5", "10.0.0.6"] } },
        conditional: { "corp.example.": "corp-example" },
      },
    },
    {
      name: "default servers",
      lines: ["server=10.0.0.1", "server=10.0.0.2#53"],
      want: { groups: { default: { servers: ["10.0.0.1", "10.0.0.2"] } } },
    },
    {
      name: "local only",
      lines: ["server=/local/", "local=/lan/"],
      want: { localOnly: ["local.", "lan."] },
    },
    {
      name: "a domain sent to the default servers",
      lines: ["server=/example.net/#"],
      want: { conditional: { "example.net.": "default" } },
    },
    {
      name: "IPv4 reverse server",
      lines: ["rev-server=192.168.0.0/16,192.168.0.1"],
      want: {
        groups: { "168-192-in-addr-arpa": { servers: ["192.168.0.1"] } },
        conditional: { "168.192.in-addr.arpa.": "168-192-in-addr-arpa" },
      },
    },
    {
      name: "IPv6 reverse server",
      lines: ["rev-server=fd00:12::/32,fd00::1"],
      want: {
        groups: { "2-1-0-0-0-0-d-f-ip6-arpa": { servers: ["fd00::1"] } },
        conditional: {
          "2.1.0.0.0.0.d.f.ip6.arpa.": "2-1-0-0-0-0-d-f-ip6-arpa",
        },
      },
    },
    {
      name: "a leading dot (dnsmasq's historical form) is the same domain",
      lines: ["server=/.corp.example/10.0.0.5"],
      want: {
        groups: { "corp-example": { servers: ["10.0.0.5"] } },
        conditional: { "corp.example.": "corp-example" },
      },
    },
    {
      name: "a comment after whitespace",
      lines: [
        "server=/corp.example/10.0.0.5 # the AD server",
        "server=/lab.example/10.0.0.6#5353\t# the lab",
        "server=10.0.0.1 #",
      ],
      want: {
        groups: {
          default: { servers: ["10.0.0.1"] },
          "corp-example": { servers: ["10.0.0.5"] },
          "lab-example": { servers: ["10.0.0.6:5353"] },
        },
        conditional: {
          "corp.example.": "corp-example",
          "lab.example.": "lab-example",
        },
      },
    },
    {
      name: "quotes are removed and hide a comment sign",
      lines: ['server=/corp.example/"10.0.0.5" # AD', 'txt-record=a,"b # c"'],
      want: {
        groups: { "corp-example": { servers: ["10.0.0.5"] } },
        conditional: { "corp.example.": "corp-example" },
        ignored: 1,
      },
    },
    {
      name: "IPv4 reverse server without a prefix length is its /32",
      lines: ["rev-server=192.168.1.7,192.168.1.1"],
      want: {
        groups: { "7-1-168-192-in-addr-arpa": { servers: ["192.168.1.1"] } },
        conditional: {
          "7.1.168.192.in-addr.arpa.": "7-1-168-192-in-addr-arpa",
        },
      },
    },
    {
      name: "comments, blanks and other options",
      lines: [
        "# server=/x/1.2.3.4",
        "",
        "   ",
        "cache-size=1000",
        "domain-needed",
      ],
      want: { ignored: 2 },
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      assert.deepEqual(parseDnsmasqServers(c.lines.join("\n")), {
        ...none,
        ...c.want,
      });
    });
  }
});

Deno.test("parseDnsmasqServers takes an IPv6 reverse server without a prefix length as its /128", () => {
  const parsed = parseDnsmasqServers("rev-server=fd00::1,fd00::53");
  assert.deepEqual(Object.keys(parsed.conditional), [
    `1.${"0.".repeat(29)}d.f.ip6.arpa.`,
  ]);
});

Deno.test("parseDnsmasqServers names a group after its first domain, without clashes", () => {
  const parsed = parseDnsmasqServers(
    ["server=/default/10.0.0.5", "server=/default./10.0.0.6"].join("\n"),
  );
  assert.deepEqual(Object.keys(parsed.groups), ["default-2"]);
});

Deno.test("parseDnsmasqServers rejects what it cannot express, naming the line", async (t) => {
  const cases = [
    {
      line: "server=/corp.example/10.0.0.5@eth0",
      error: /line 2: source address or interface in "10.0.0.5@eth0"/,
    },
    {
      line: "server=//10.0.0.5",
      error: /line 2: forwarding of unqualified names/,
    },
    {
      line: "server=/*.example/10.0.0.5",
      error: /line 2: wildcard domain "\*.example"/,
    },
    {
      line: "server=/corp.example/dns.example",
      error: /line 2: "dns.example" is not an IP address/,
    },
    {
      line: "server=10.0.0.1#99999",
      error: /line 2: port "99999" is not a number from 1 to 65535/,
    },
    {
      line: "rev-server=10.0.0.0/12,10.0.0.1",
      error: /line 2: reverse prefix \/12 is not on an octet boundary/,
    },
    {
      line: "rev-server=10.0.0.0.1,10.0.0.1",
      error: /line 2: "10.0.0.0.1" is not an IP address or CIDR prefix/,
    },
    {
      line: "rev-server=10.0.0.0/0,10.0.0.1",
      error: /line 2: reverse prefix "10.0.0.0\/0" is \/0/,
    },
    {
      line: "server=/corp..example/10.0.0.5",
      error: /line 2: "corp..example" is not a domain name: .*empty label/,
    },
    {
      line: "server=/..corp.example/10.0.0.5",
      error: /line 2: "..corp.example" is not a domain name: .*empty label/,
    },
    {
      line: 'server=/corp.example/"10.0.0.5#5353"',
      error: /line 2: a quoted "#" or "," is not supported/,
    },
    {
      line: 'server=/corp.example/"10.0.0.5',
      error: /line 2: a quote \(\"\) is not closed/,
    },
    { line: "server=", error: /line 2: "server=" names no server/ },
  ];
  for (const c of cases) {
    await t.step(c.line, () => {
      assert.throws(
        () => parseDnsmasqServers(`# pihole\n${c.line}`, "02-pihole.conf"),
        (error: unknown) => {
          assert.ok(error instanceof DnsmasqImportError);
          assert.match(
            error.message,
            /^Cannot import dnsmasq servers from "02-pihole.conf": /,
          );
          assert.match(error.message, c.error);
          return true;
        },
      );
    });
  }
});
