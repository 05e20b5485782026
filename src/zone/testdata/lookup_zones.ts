/**
 * The zones of the lookup tables: the same data the NSD 4.6.1 and Knot 3.2
 * runs used (README.md), so each expected answer is what NSD sent.
 */
import { zoneFromText } from "../../testing/zone_text.ts";

const O = "example.org.";

export const EXAMPLE_ORG = zoneFromText(O, [
  `${O} 3600 IN SOA ns1.${O} hostmaster.${O} 7 3600 900 1209600 120`,
  `${O} 300 IN NS ns1.${O}`,
  `${O} 300 IN NS ns.other.net.`,
  `${O} 300 IN MX 10 mail.${O}`,
  `${O} 300 IN MX 20 mail.other.net.`,
  `${O} 300 IN A 192.0.2.10`,
  `${O} 300 IN TXT "apex"`,
  `ns1.${O} 300 IN A 192.0.2.53`,
  `ns1.${O} 300 IN AAAA 2001:db8::53`,
  `mail.${O} 300 IN A 192.0.2.25`,
  `www.${O} 300 IN A 192.0.2.1`,
  `www.${O} 300 IN AAAA 2001:db8::1`,
  `_sip._tcp.${O} 300 IN SRV 0 5 5060 sip.${O}`,
  `sip.${O} 300 IN A 192.0.2.60`,
  `_svc.${O} 300 IN SVCB 1 sip.${O} alpn=h2`,
  `self.${O} 300 IN HTTPS 1 . alpn=h3`,
  `self.${O} 300 IN A 192.0.2.61`,
  `alias.${O} 300 IN CNAME www.${O}`,
  `alias2.${O} 300 IN CNAME alias.${O}`,
  `ext.${O} 300 IN CNAME www.other.net.`,
  `toothr.${O} 300 IN CNAME host.second.test.`,
  `tonx.${O} 300 IN CNAME nothere.${O}`,
  `tonx2.${O} 300 IN CNAME nothere.second.test.`,
  `loop1.${O} 300 IN CNAME loop2.${O}`,
  `loop2.${O} 300 IN CNAME loop1.${O}`,
  `a.b.c.${O} 300 IN A 192.0.2.2`,
  `*.wild.${O} 300 IN A 192.0.2.3`,
  `*.wild.${O} 300 IN TXT "wild"`,
  `x.wild.${O} 300 IN TXT "x"`,
  `*.cn.${O} 300 IN CNAME www.${O}`,
  `tocn.${O} 300 IN CNAME foo.cn.${O}`,
  `*.ent.${O} 300 IN A 192.0.2.4`,
  `y.z.ent.${O} 300 IN A 192.0.2.5`,
  `d.${O} 300 IN DNAME other.${O}`,
  `d.${O} 300 IN A 192.0.2.6`,
  `x.other.${O} 300 IN A 192.0.2.7`,
  `sub.${O} 300 IN NS ns.sub.${O}`,
  `sub.${O} 300 IN NS ns.elsewhere.net.`,
  `ns.sub.${O} 300 IN A 192.0.2.99`,
  `ns.sub.${O} 300 IN AAAA 2001:db8::99`,
  `deep.x.sub.${O} 300 IN A 192.0.2.100`,
  `nsref.${O} 300 IN NS ns1.${O}`,
  `tosub.${O} 300 IN CNAME deep.x.sub.${O}`,
  `mxsub.${O} 300 IN MX 10 ns.sub.${O}`,
  `mxsub.${O} 300 IN MX 20 www.${O}`,
  `tod.${O} 300 IN CNAME x.d.${O}`,
  `ord2.${O} 300 IN TXT "t"`,
  `ord2.${O} 300 IN MX 10 www.${O}`,
  `ord2.${O} 300 IN AAAA 2001:db8::8`,
  `ord3.${O} 300 IN TXT "t"`,
  `ord3.${O} 300 IN SRV 0 0 1 www.${O}`,
  `ord3.${O} 300 IN PTR www.${O}`,
  `ord3.${O} 300 IN CAA 0 issue "x"`,
  `ord4.${O} 300 IN TXT "t"`,
  `ord4.${O} 300 IN SSHFP 1 1 aabbccddeeff00112233445566778899aabbccdd`,
  `mxo.${O} 300 IN MX 10 host.second.test.`,
  `mxw.${O} 300 IN MX 10 foo.wild.${O}`,
  `srvx.${O} 300 IN SRV 0 0 1 foo.wild.${O}`,
  `kid.${O} 300 IN NS ns1.kid.${O}`,
  `ns1.kid.${O} 300 IN A 192.0.2.150`,
  `tokid.${O} 300 IN CNAME www.kid.${O}`,
  `tofwd.${O} 300 IN CNAME www.fwd.${O}`,
]);

export const SECOND_TEST = zoneFromText("second.test.", [
  "second.test. 600 IN SOA ns1.second.test. h.second.test. 1 3600 900 1209600 60",
  "second.test. 600 IN NS ns1.second.test.",
  "ns1.second.test. 600 IN A 192.0.2.200",
  "host.second.test. 600 IN A 192.0.2.201",
]);

export const KID_EXAMPLE_ORG = zoneFromText("kid.example.org.", [
  "kid.example.org. 100 IN SOA ns1.kid.example.org. h.kid.example.org. 3 3600 900 1209600 50",
  "kid.example.org. 100 IN NS ns1.kid.example.org.",
  "ns1.kid.example.org. 100 IN A 192.0.2.150",
  "www.kid.example.org. 100 IN A 192.0.2.151",
  "up.kid.example.org. 100 IN CNAME www.example.org.",
]);

/** A primary zone below a forward zone. */
export const INNER_CORP = zoneFromText("inner.corp.", [
  "inner.corp. 60 IN SOA ns.inner.corp. h.inner.corp. 1 3600 900 1209600 30",
  "inner.corp. 60 IN NS ns.inner.corp.",
  "ns.inner.corp. 60 IN A 10.0.0.53",
  "app.inner.corp. 60 IN A 10.0.0.1",
]);
