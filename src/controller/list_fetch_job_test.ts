import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { decodeListBody } from "../blocking/parse/detect.ts";
import { memoryLogger } from "../log/logger.ts";
import { WorkerControl } from "../snapshot/testdata/worker_control.ts";
import { finishWithin } from "../snapshot/testdata/zone_objects.ts";
import { countRules } from "../blocking/list_counts.ts";
import { type ListFetchJob, runListFetch } from "./list_fetch_job.ts";
import { Limiter } from "./list_fetch_limit.ts";
import { ListServer } from "./list_fetch_testing.ts";
import { listFilePath } from "../blocking/list_files.ts";

/** 3.3 MB, 122,680 rules. */
const REAL_LIST = fileURLToPath(
  new URL("../../../shared/data/blocklists/adblock_light.txt", import.meta.url),
);

function job(
  url: string,
  listsDir: string,
  over: Partial<ListFetchJob> = {},
): ListFetchJob {
  return {
    url,
    formats: ["auto"],
    network: true,
    listsDir,
    fetch,
    maxBytes: 64 * 1024 * 1024,
    timeoutMs: 30_000,
    retryDelaysMs: [],
    limiter: new Limiter(1),
    signal: new AbortController().signal,
    now: () => new Date(),
    logger: memoryLogger(),
    ...over,
  };
}

/** The count jobs the test's workers were given. */
const countJobs = (control: WorkerControl) =>
  control.messages.filter((m) =>
    typeof m === "object" && m !== null && "count" in m
  );

Deno.test("a large body is decoded and counted in a worker, not on the main thread", async () => {
  using control = new WorkerControl();
  await using server = new ListServer();
  const listsDir = await Deno.makeTempDir({ prefix: "kudurru-fetch-job-" });
  try {
    const body = await Deno.readFile(REAL_LIST);
    server.routes.set("/light.txt", { body, etag: '"v1"' });
    const url = server.url("/light.txt");
    const fetched = await runListFetch(job(url, listsDir));
    assert.ok(fetched.ok, JSON.stringify(fetched));
    assert.equal(countJobs(control).length, 1, "counted in a worker");
    const text = decodeListBody(body);
    assert.deepEqual(fetched.meta.counts, { auto: countRules(text, "auto") });
    assert.equal(fetched.meta.counts.auto?.ruleCount, 122_680);

    // A format the sidecar lacks is counted from the copy on disk, there too.
    const recounted = await runListFetch(
      job(url, listsDir, { network: false, formats: ["auto", "adblock"] }),
    );
    assert.ok(recounted.ok);
    assert.equal(countJobs(control).length, 2);
    assert.deepEqual(
      recounted.meta.counts.adblock,
      countRules(text, "adblock"),
    );

    // A large HTML page is refused by the worker's count; the copy stays.
    const page = "<!doctype html><html><body>" + "x".repeat(400_000) +
      "</body></html>\n";
    server.routes.set("/light.txt", { body: page, etag: '"v2"' });
    const refused = await runListFetch(job(url, listsDir));
    assert.deepEqual(
      [refused.ok, !refused.ok && refused.error],
      [false, "the body is an HTML page, not a list"],
    );
    assert.equal(countJobs(control).length, 3);
    assert.deepEqual(
      await Deno.readFile(listFilePath(listsDir, url)),
      body,
      "the last good copy stays",
    );
  } finally {
    await Deno.remove(listsDir, { recursive: true });
  }
});

Deno.test("a stop while a large body is counted ends the count and its worker", async () => {
  using control = new WorkerControl();
  await using server = new ListServer();
  const listsDir = await Deno.makeTempDir({ prefix: "kudurru-fetch-job-" });
  try {
    server.routes.set("/light.txt", { body: await Deno.readFile(REAL_LIST) });
    const url = server.url("/light.txt");
    const stop = new AbortController();
    control.hold("count"); // the count runs until the test says
    const running = runListFetch(job(url, listsDir, { signal: stop.signal }));
    await finishWithin("the count job", control.posted("count", 1));
    stop.abort(new Error("stopping"));
    const outcome = await running;
    assert.deepEqual(
      [outcome.ok, !outcome.ok && outcome.error],
      [false, "stopping"],
    );
    assert.equal(control.terminated, control.created, "no worker is left");
    await assert.rejects(Deno.stat(listFilePath(listsDir, url)));
  } finally {
    await Deno.remove(listsDir, { recursive: true });
  }
});
