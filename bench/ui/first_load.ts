/**
 * The web UI's first load: a logged-in user opens the dashboard in a
 * browser with an empty cache (headless Debian Chromium through
 * playwright-core) against a real `kudurru serve`. Printed per load: the
 * requests the page made, the bytes that crossed the wire (compressed, as
 * sent) and unpacked, and the time from navigation to the first chart
 * drawn (its <canvas> in the page), with p50 and max over the runs.
 * Runs are `--pause` ms apart: a person opening the page now and then, not
 * a load test, which the API's CPU share (listeners.api.cpuPercent) would
 * slow down on purpose.
 *
 *   deno run -A bench/ui/first_load.ts [--runs 10] [--pause 5000]
 */
import { parseArgs } from "node:util";
import { chromium, type Response } from "playwright-core";
import {
  LOCAL_READY_ZONE,
  localReadyZoneObject,
  startKudurru,
} from "../../src/testing/kudurru_server.ts";
import { CHROMIUM, CHROMIUM_ARGS } from "../../src/testing/chromium.ts";
import { freePort } from "../../src/testing/free_port.ts";
import { query } from "../../src/testing/dns_client.ts";
import {
  cpuModel,
  intOption,
  ms,
  percentile,
  print,
  table,
} from "../api/harness.ts";

const PASSWORD = "a benchmark passphrase, long enough";
const { values } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "10" },
    pause: { type: "string", default: "5000" },
  },
});
const RUNS = intOption("runs", values.runs, 1, 100);
const PAUSE_MS = intOption("pause", values.pause, 0, 60_000);

/** The loopback clients need Deno.listenDatagram: re-run under --unstable-net. */
if (typeof Deno.listenDatagram !== "function") {
  const status = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-net", import.meta.filename!, ...Deno.args],
    stdin: "null",
  }).spawn().status;
  Deno.exit(status.code);
}

await using server = await startKudurru({
  objects: [localReadyZoneObject()],
  readyZone: LOCAL_READY_ZONE,
  upstreamPort: freePort(),
  env: { KUDURRU_ADMIN_PASSWORD: PASSWORD },
});
// Something for the dashboard to show.
for (let i = 0; i < 50; i++) {
  await query(server.port, `n${i % 7}.${LOCAL_READY_ZONE}`, "A").catch(
    () => {},
  );
}
for (let i = 0; i < 300; i++) {
  const up = await fetch(`${server.apiUrl}/api/v1/auth/status`).catch(() =>
    undefined
  );
  await up?.body?.cancel();
  if (up?.ok) break;
  await new Promise((r) => setTimeout(r, 100));
}

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: CHROMIUM_ARGS,
});
try {
  // Log in once; each run starts from that session with an empty cache.
  const login = await browser.newContext();
  const answer = await login.request.post(
    `${server.apiUrl}/api/v1/auth/login`,
    {
      data: { username: "admin", password: PASSWORD },
    },
  );
  if (!answer.ok()) throw new Error(`login: ${answer.status()}`);
  const session = await login.storageState();
  await login.close();

  const runs: { ms: number; requests: number; wire: number; body: number }[] =
    [];
  for (let run = 0; run < RUNS; run++) {
    await new Promise((r) => setTimeout(r, PAUSE_MS));
    const context = await browser.newContext({ storageState: session });
    const page = await context.newPage();
    const responses: Response[] = [];
    page.on("response", (r) => responses.push(r));
    const began = performance.now();
    await page.goto(`${server.apiUrl}/`);
    await page.locator(".chart canvas").first().waitFor();
    const elapsed = performance.now() - began;
    let wire = 0;
    let body = 0;
    for (const r of responses) {
      const sizes = await r.request().sizes();
      wire += sizes.responseBodySize + sizes.responseHeadersSize;
      body += (await r.body().catch(() => new Uint8Array())).length;
    }
    runs.push({ ms: elapsed, requests: responses.length, wire, body });
    await context.close();
  }
  const kb = (n: number) => (n / 1024).toFixed(1);
  print(
    "Web UI first load: the dashboard, logged in, empty cache, until its first chart is drawn",
  );
  print(
    `  ${RUNS} runs ${PAUSE_MS} ms apart; headless Chromium (${CHROMIUM}); host: ${cpuModel()}; Deno ${Deno.version.deno}`,
  );
  print();
  for (
    const line of table([
      ["", "p50", "max"],
      [
        "time to the first chart, ms",
        ms(percentile(runs.map((r) => r.ms), 50)),
        ms(Math.max(...runs.map((r) => r.ms))),
      ],
      [
        "requests",
        String(percentile(runs.map((r) => r.requests), 50)),
        String(Math.max(...runs.map((r) => r.requests))),
      ],
      [
        "KB over the wire",
        kb(percentile(runs.map((r) => r.wire), 50)),
        kb(Math.max(...runs.map((r) => r.wire))),
      ],
      [
        "KB unpacked",
        kb(percentile(runs.map((r) => r.body), 50)),
        kb(Math.max(...runs.map((r) => r.body))),
      ],
    ])
  ) print(line);
} finally {
  await browser.close();
}
