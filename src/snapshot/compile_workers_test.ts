import assert from "node:assert/strict";
import { CompileWorkers } from "./compile_workers.ts";

Deno.test("a compile job with no answer in time counts as a crash and its worker ends", async () => {
  const workers = new CompileWorkers({
    url: new URL("./testdata/silent_worker.ts", import.meta.url),
    jobTimeoutMs: 100,
  });
  try {
    const crashed = Promise.withResolvers<string>();
    workers.start({ job: 1 }, {
      onReply: () => crashed.reject(new Error("a silent worker answered")),
      onCrash: (message) => crashed.resolve(message),
    });
    assert.equal(workers.running, 1);
    assert.equal(await crashed.promise, "no answer within 100 ms");
    // Its lane is free again.
    assert.equal(workers.running, 0);
  } finally {
    workers.close();
  }
});
