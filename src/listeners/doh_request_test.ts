import assert from "node:assert/strict";
import {
  base64UrlDecode,
  dnsParam,
  isDnsMessageType,
  MAX_DNS_PARAM,
  postLength,
  queryFromGet,
  urlParts,
} from "./doh_request.ts";

/** RFC 4648 §5 base64url without padding, as RFC 8484 §4.1 sends it. */
function encode(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
}

Deno.test("urlParts cuts the path and the query out of request.url", () => {
  const cut = (url: string) => {
    const parts = urlParts(url);
    if (parts === undefined) return undefined;
    const { path, queryStart } = parts;
    return { path, query: queryStart < 0 ? null : url.slice(queryStart) };
  };
  assert.deepEqual(cut("https://dns.example:443/dns-query?dns=AAAB"), {
    path: "/dns-query",
    query: "dns=AAAB",
  });
  assert.deepEqual(cut("https://[::1]:8443/dns-query/phone"), {
    path: "/dns-query/phone",
    query: null,
  });
  // A malformed Host (Deno.serve puts HTTP/1.1's in unchecked) does not
  // make "?" or "#" in it the start of the query.
  assert.deepEqual(cut("https://x?y#/dns-query?dns=AA"), {
    path: "/dns-query",
    query: "dns=AA",
  });
  assert.equal(cut("https://host"), undefined);
  assert.equal(cut("not a url"), undefined);
});

Deno.test("dnsParam finds dns= among the parameters, first one wins", () => {
  const at = (url: string) => dnsParam(url, url.indexOf("?") + 1);
  assert.equal(at("https://h/p?dns=AAAA"), "AAAA");
  assert.equal(at("https://h/p?ct=x&dns=AAAA&z=1"), "AAAA");
  assert.equal(at("https://h/p?dns=AAAA&dns=BBBB"), "AAAA");
  assert.equal(at("https://h/p?dns="), "");
  assert.equal(at("https://h/p?xdns=AAAA"), undefined);
  assert.equal(at("https://h/p?DNS=AAAA"), undefined);
  assert.equal(dnsParam("https://h/p", -1), undefined);
});

Deno.test("base64UrlDecode reads RFC 4648 §5 test vectors with and without padding", () => {
  const text = (s: string) => new TextEncoder().encode(s);
  // RFC 4648 §10, in the URL-safe alphabet.
  const vectors: [string, string][] = [
    ["", ""],
    ["f", "Zg"],
    ["fo", "Zm8"],
    ["foo", "Zm9v"],
    ["foob", "Zm9vYg"],
    ["fooba", "Zm9vYmE"],
    ["foobar", "Zm9vYmFy"],
  ];
  for (const [plain, encoded] of vectors) {
    assert.deepEqual(base64UrlDecode(encoded), text(plain), encoded);
  }
  assert.deepEqual(base64UrlDecode("Zg=="), text("f"));
  assert.deepEqual(base64UrlDecode("Zm8%3D"), text("fo"));
  assert.deepEqual(base64UrlDecode("Zg%3d%3D"), text("f"));
  // Octets 0xfb 0xff: "+/" in standard base64, "-_" here.
  assert.deepEqual(base64UrlDecode("-_8"), new Uint8Array([0xfb, 0xff]));
  assert.equal(base64UrlDecode("+/8"), undefined);
  assert.equal(base64UrlDecode("Zm9vY"), undefined); // 6 bits left over
  assert.equal(base64UrlDecode("Zm 9v"), undefined);
  assert.equal(base64UrlDecode("Zm9v%41"), undefined);
  assert.equal(base64UrlDecode("Zg==="), undefined);
  assert.equal(base64UrlDecode("Zé9v"), undefined);
});

Deno.test("base64UrlDecode reads back random messages of every length mod 3", () => {
  for (let length = 0; length < 300; length++) {
    const bytes = crypto.getRandomValues(new Uint8Array(length));
    assert.deepEqual(base64UrlDecode(encode(bytes)), bytes);
  }
});

Deno.test("queryFromGet: the query, or 400 and 414 with a reason", () => {
  const query = new Uint8Array(29).fill(7);
  const url = `https://h/dns-query?dns=${encode(query)}`;
  assert.deepEqual(queryFromGet(url, url.indexOf("?") + 1), query);

  const refused = (u: string) => {
    const r = queryFromGet(u, u.indexOf("?") + 1);
    assert.ok(!(r instanceof Uint8Array), u);
    return r.status;
  };
  assert.equal(refused("https://h/dns-query?x=1"), 400);
  assert.equal(refused("https://h/dns-query?dns=%%%"), 400);
  // 11 octets: shorter than a DNS header.
  assert.equal(refused(`https://h/p?dns=${encode(new Uint8Array(11))}`), 400);
  assert.equal(
    refused(`https://h/p?dns=${"A".repeat(MAX_DNS_PARAM + 10)}`),
    414,
  );
  // The longest message there is still decodes.
  const longest = new Uint8Array(65_535);
  const max = `https://h/p?dns=${encode(longest)}`;
  assert.equal(encode(longest).length, MAX_DNS_PARAM);
  assert.deepEqual(queryFromGet(max, max.indexOf("?") + 1), longest);
});

Deno.test("isDnsMessageType compares the media type without case or parameters", () => {
  assert.ok(isDnsMessageType("application/dns-message"));
  assert.ok(isDnsMessageType("Application/DNS-Message"));
  assert.ok(isDnsMessageType("application/dns-message; charset=x"));
  assert.ok(isDnsMessageType(" application/dns-message ;x=1"));
  assert.ok(!isDnsMessageType(null));
  assert.ok(!isDnsMessageType("application/dns-message+json"));
  assert.ok(!isDnsMessageType("application/dns-json"));
  assert.ok(!isDnsMessageType("application/x-www-form-urlencoded"));
});

Deno.test("postLength takes a length up to 65535, refuses the rest before reading", () => {
  assert.equal(postLength(null), undefined);
  assert.equal(postLength("29"), 29);
  assert.equal(postLength("65535"), 65_535);
  const status = (v: string) => {
    const r = postLength(v);
    assert.ok(typeof r === "object", v);
    return r.status;
  };
  assert.equal(status("65536"), 413);
  assert.equal(status("99999999999999999999999"), 413);
  assert.equal(status("11"), 400);
  assert.equal(status(""), 400);
  assert.equal(status("-1"), 400);
  assert.equal(status("1e3"), 400);
  assert.equal(status("29, 29"), 400);
});
