import assert from "node:assert/strict";

/**
 * Runs testdata/fd_starved_listener.ts with at most `limit` descriptors;
 * lines of its output come from `lines`.
 */
function starvedChild(limit: number) {
  const script = new URL("./testdata/fd_starved_listener.ts", import.meta.url)
    .pathname;
  const child = new Deno.Command("sh", {
    args: [
      "-c",
      `ulimit -n ${limit} && exec "$0" run --allow-read --allow-net=127.0.0.1 "$1"`,
      Deno.execPath(),
      script,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const line = async (): Promise<string> => {
    for (;;) {
      const end = buffered.indexOf("\n");
      if (end >= 0) {
        const out = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        return out;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`the child ended; it said: ${buffered}`);
      buffered += value;
    }
  };
  const writer = child.stdin.getWriter();
  const tell = (word: string) =>
    writer.write(new TextEncoder().encode(word + "\n"));
  return { child, line, tell, writer, reader };
}

Deno.test("an HTTP listener whose accept fails for want of descriptors comes back", async () => {
  const { child, line, tell, writer, reader } = starvedChild(64);
  try {
    const port = Number((await line()).replace("port ", ""));
    // The kernel completes the handshake; the child's accept gets EMFILE,
    // which Deno.serve reports as a rejection that, unhandled, ends the
    // process. The connection may be reset once the listener's socket closes.
    const conn = await Deno.connect({ hostname: "127.0.0.1", port })
      .catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    conn?.close();
    await tell("release");
    let status = 0;
    for (let i = 0; i < 200 && status !== 200; i++) {
      status = await fetch(`http://127.0.0.1:${port}/`)
        .then(async (res) => (await res.body?.cancel(), res.status))
        .catch(() => 0);
      if (status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(status, 200);
    await tell("log");
    const log = await line();
    assert.match(
      log,
      /The test listener on 127\.0\.0\.1:\d+ stopped; starting it again/,
    );
    assert.match(log, /The test listener is back/);
    await tell("stop");
    assert.equal((await child.status).code, 0);
  } finally {
    await writer.close().catch(() => {});
    await reader.cancel().catch(() => {});
    await child.stderr.cancel().catch(() => {});
    try {
      child.kill();
    } catch {
      // already gone
    }
  }
});
