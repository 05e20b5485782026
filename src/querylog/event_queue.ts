/**
 * The writer's bounded in-memory queue: workers' packed batches, oldest
 * first, taken off in slices of at most one transaction's worth. A slice
 * leaves the queue only once it is written (or given up on), so a batch
 * that fails is retried from where it stood. A batch is released (its
 * `release`) once none of it is queued any more: then nothing reads its
 * arrays, and the worker that filled them may fill them again.
 */
import type { QueryEvent } from "../pipeline/query_event.ts";
import {
  type PackedQueryEvents,
  QueryEventPacker,
} from "../pipeline/query_event_pack.ts";
import type { BatchSlice } from "./batch_store.ts";

export class EventQueue {
  /** Batches waiting, oldest first; the first may be partly written. */
  #slices: BatchSlice[] = [];
  #size = 0;

  /** Events waiting. */
  get size(): number {
    return this.#size;
  }

  /** Queues what fits of `batch` under `max` events; returns how many did. */
  push(batch: PackedQueryEvents, max: number): number {
    const take = Math.max(0, Math.min(max - this.#size, batch.count));
    if (take > 0) {
      this.#slices.push({ batch, from: 0, to: take });
      this.#size += take;
    } else {
      release(batch);
    }
    return take;
  }

  /** Up to `limit` events from the front, still queued. */
  front(limit: number): BatchSlice[] {
    const slices: BatchSlice[] = [];
    let room = limit;
    for (const slice of this.#slices) {
      if (room === 0) break;
      const take = Math.min(room, slice.to - slice.from);
      slices.push({ ...slice, to: slice.from + take });
      room -= take;
    }
    return slices;
  }

  /** Removes `slices` (the queue's front, from `front`); returns the events. */
  consume(slices: readonly BatchSlice[]): number {
    let events = 0;
    for (const slice of slices) {
      const head = this.#slices[0]!;
      head.from = slice.to;
      events += slice.to - slice.from;
      if (head.from === head.to) {
        this.#slices.shift();
        release(head.batch);
      }
    }
    this.#size -= events;
    return events;
  }

  /** Empties the queue; returns the events it held. */
  clear(): number {
    const events = this.#size;
    const slices = this.#slices;
    this.#slices = [];
    this.#size = 0;
    for (const slice of slices) release(slice.batch);
    return events;
  }
}

/** Tells `batch`'s owner the queue is done with its arrays. */
function release(batch: PackedQueryEvents): void {
  try {
    batch.release?.();
  } catch {
    // It must not throw; if it does, the queue stays whole and the arrays
    // are left to the garbage collector.
  }
}

/**
 * Plain events (tests, tools) packed as a worker packs them; what is not a
 * QueryEvent (or not a list) is counted as invalid, never thrown.
 */
export function packEvents(
  events: readonly QueryEvent[],
): { batch: PackedQueryEvents; invalid: number } {
  const packer = new QueryEventPacker(128);
  let invalid = 0;
  try {
    for (const event of events) {
      try {
        packer.add(event);
      } catch {
        invalid++; // not a QueryEvent
      }
    }
  } catch {
    invalid++; // not a list
  }
  return { batch: packer.take(), invalid };
}
