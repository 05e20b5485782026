import { encodeProxyV2 } from "./src/listeners/proxy_v2.ts";
import { decodeResponse, queryMessage } from "./src/testing/dns_client.ts";
const q = queryMessage("health.kudurru.internal.", "TXT", { id: 7 });
const h = encodeProxyV2({ command: "local" });
const m = new Uint8Array(h.length + q.length);
m.set(h);
m.set(q, h.length);
const s = Deno.listenDatagram({
  transport: "udp",
  hostname: "127.0.0.1",
  port: 0,
});
for (const msg of [q, m]) {
  await s.send(msg, { transport: "udp", hostname: "127.0.0.1", port: 25353 });
  const t = setTimeout(() => {
    console.log("timeout");
    Deno.exit(1);
  }, 2000);
  const [r] = await s.receive();
  clearTimeout(t);
  const d = decodeResponse(r);
  console.log(d.rcode, JSON.stringify(d.answers));
}
s.close();
