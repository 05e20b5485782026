import assert from "node:assert/strict";
import {
  EVENT_INTS,
  type PackedQueryEvents,
} from "../pipeline/query_event_pack.ts";
import { EventQueue } from "./event_queue.ts";

/** A batch of `count` events that counts its releases in `released`. */
function batch(count: number, released: Map<string, number>, name: string) {
  const events: PackedQueryEvents = {
    count,
    strings: [],
    times: new Float64Array(count),
    ints: new Int32Array(count * EVENT_INTS),
    release: () => released.set(name, (released.get(name) ?? 0) + 1),
  };
  return events;
}

Deno.test("the event queue releases a batch once all of it is consumed, not before", () => {
  const released = new Map<string, number>();
  const queue = new EventQueue();
  queue.push(batch(3, released, "a"), 100);
  queue.push(batch(2, released, "b"), 100);
  queue.consume(queue.front(2));
  assert.deepEqual([...released], [], "a partly consumed batch is kept");
  queue.consume(queue.front(2));
  assert.deepEqual([...released], [["a", 1]]);
  queue.consume(queue.front(10));
  assert.deepEqual([...released], [["a", 1], ["b", 1]]);
  assert.equal(queue.size, 0);
});

Deno.test("the event queue releases at once a batch it has no room for, and a cut one once its queued part is consumed", () => {
  const released = new Map<string, number>();
  const queue = new EventQueue();
  assert.equal(queue.push(batch(4, released, "cut"), 3), 3);
  assert.equal(queue.push(batch(2, released, "none"), 3), 0);
  assert.deepEqual([...released], [["none", 1]]);
  assert.equal(queue.consume(queue.front(3)), 3);
  assert.deepEqual([...released], [["none", 1], ["cut", 1]]);
});

Deno.test("the event queue releases every batch it holds when cleared", () => {
  const released = new Map<string, number>();
  const queue = new EventQueue();
  queue.push(batch(3, released, "a"), 100);
  queue.push(batch(2, released, "b"), 100);
  queue.consume(queue.front(1));
  assert.equal(queue.clear(), 4);
  assert.deepEqual([...released], [["a", 1], ["b", 1]]);
  assert.equal(queue.size, 0);
  assert.deepEqual(queue.front(10), []);
});

Deno.test("the event queue stays whole when a release throws", () => {
  const released = new Map<string, number>();
  const queue = new EventQueue();
  const throws = batch(1, released, "throws");
  throws.release = () => {
    throw new Error("a release must not throw");
  };
  queue.push(throws, 100);
  queue.push(batch(2, released, "b"), 100);
  queue.push(batch(2, released, "c"), 100);
  assert.equal(queue.consume(queue.front(3)), 3);
  assert.deepEqual([...released], [["b", 1]]);
  assert.equal(queue.size, 2);
  assert.equal(queue.clear(), 2);
  assert.deepEqual([...released], [["b", 1], ["c", 1]]);
});
