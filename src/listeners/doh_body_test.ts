import assert from "node:assert/strict";
import { DOH_DRAIN_OCTETS, DohBodies } from "./doh_body.ts";

/**
 * A POST whose body is a stream: `chunks` are handed over as the reader
 * asks, then the stream ends, or stays open with `hang`. `pulled` counts
 * the chunks handed over; `cancelled` tells whether the reader gave up.
 */
function streamed(chunks: Uint8Array[], hang = false) {
  const state = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller): Promise<void> | undefined {
      const chunk = chunks[state.pulled];
      if (chunk !== undefined) {
        state.pulled++;
        controller.enqueue(chunk);
      } else if (!hang) {
        controller.close();
      } else {
        return new Promise(() => {}); // never another chunk
      }
      return undefined;
    },
    cancel() {
      state.cancelled = true;
    },
  }, { highWaterMark: 0 });
  const request = new Request("https://h/dns-query", { method: "POST", body });
  return { request, state };
}

function statusOf(result: unknown): unknown {
  return result instanceof Uint8Array
    ? result.length
    : typeof result === "object" && result !== null && "status" in result
    ? result.status
    : result;
}

Deno.test("DohBodies reads a body of Content-Length octets whole", async () => {
  const bodies = new DohBodies(10_000);
  const body = new Uint8Array(29).fill(1);
  const request = new Request("https://h/", { method: "POST", body });
  const result = await bodies.read(request, 29);
  assert.deepEqual(result, body);
  assert.equal(bodies.size, 0);
  bodies.close();
});

Deno.test("DohBodies joins the chunks of a body without a length", async () => {
  const bodies = new DohBodies(10_000);
  const { request, state } = streamed([
    new Uint8Array(10).fill(1),
    new Uint8Array(10).fill(2),
    new Uint8Array(5).fill(3),
  ]);
  const result = await bodies.read(request, undefined);
  assert.ok(result instanceof Uint8Array);
  assert.deepEqual([...result], [
    ...new Array(10).fill(1),
    ...new Array(10).fill(2),
    ...new Array(5).fill(3),
  ]);
  assert.equal(state.pulled, 3);
  bodies.close();
});

Deno.test("DohBodies keeps no more than 65535 octets of a chunked body (413), and reads the rest to its end", async () => {
  const bodies = new DohBodies(10_000);
  const chunks = Array.from({ length: 100 }, () => new Uint8Array(1000));
  const { request, state } = streamed(chunks);
  assert.equal(statusOf(await bodies.read(request, undefined)), 413);
  assert.equal(state.pulled, 100);
  assert.ok(!state.cancelled);
  bodies.close();
});

Deno.test("DohBodies cancels a body past DOH_DRAIN_OCTETS", async () => {
  const bodies = new DohBodies(10_000);
  const chunks = Array.from({ length: 40 }, () => new Uint8Array(65_536));
  const { request, state } = streamed(chunks);
  assert.equal(statusOf(await bodies.read(request, undefined)), 413);
  // 16 chunks make DOH_DRAIN_OCTETS exactly; the 17th goes past it.
  assert.equal(DOH_DRAIN_OCTETS, 16 * 65_536);
  assert.equal(state.pulled, 17);
  assert.ok(state.cancelled);
  bodies.close();
});

Deno.test("DohBodies drain reads a refused body to its end, or to a cut", async () => {
  const bodies = new DohBodies(10_000);
  const whole = streamed([new Uint8Array(10), new Uint8Array(10)]);
  await bodies.drain(whole.request);
  assert.equal(whole.state.pulled, 2);
  assert.ok(!whole.state.cancelled);

  const hanging = streamed([new Uint8Array(10)], true);
  const draining = bodies.drain(hanging.request);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(bodies.size, 1);
  bodies.cutAll();
  await draining;
  assert.ok(hanging.state.cancelled);
  // Nothing to drain: no body.
  await bodies.drain(new Request("https://h/", { method: "POST" }));
  bodies.close();
});

Deno.test("DohBodies refuses bodies shorter than a DNS header, and no body (400)", async () => {
  const bodies = new DohBodies(10_000);
  const short = new Request("https://h/", {
    method: "POST",
    body: new Uint8Array(11),
  });
  assert.equal(statusOf(await bodies.read(short, 11)), 400);
  const { request } = streamed([new Uint8Array(5)]);
  assert.equal(statusOf(await bodies.read(request, undefined)), 400);
  const none = new Request("https://h/", { method: "POST" });
  assert.equal(statusOf(await bodies.read(none, undefined)), 400);
  bodies.close();
});

Deno.test("DohBodies cuts a body that stops arriving with 408, and cancels its stream", async () => {
  const bodies = new DohBodies(150);
  const { request, state } = streamed([new Uint8Array(5)], true);
  const started = Date.now();
  assert.equal(statusOf(await bodies.read(request, undefined)), 408);
  assert.ok(Date.now() - started >= 140, "not before the timeout");
  assert.ok(state.cancelled);
  assert.equal(bodies.size, 0);
  bodies.close();
});

Deno.test("DohBodies cutAll ends the bodies still arriving with 'stopping'", async () => {
  const bodies = new DohBodies(10_000);
  const { request, state } = streamed([new Uint8Array(5)], true);
  const reading = bodies.read(request, undefined);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(bodies.size, 1);
  bodies.close();
  assert.equal(await reading, "stopping");
  assert.ok(state.cancelled);
});
