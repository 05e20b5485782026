import assert from "node:assert/strict";
import { writeAllSync } from "./command.ts";

/** Takes at most `room` bytes, then fails the way a full disk does. */
function diskWithRoomFor(room: number) {
  const written: number[] = [];
  return {
    written,
    writeSync(p: Uint8Array): number {
      if (written.length >= room) {
        throw new Error("No space left on device (os error 28)");
      }
      const n = Math.min(p.length, room - written.length, 3);
      written.push(...p.subarray(0, n));
      return n;
    },
  };
}

Deno.test("writeAllSync writes everything a short write left over", () => {
  const out = diskWithRoomFor(100);
  writeAllSync(out, new TextEncoder().encode("kind: List\n"));
  assert.equal(
    new TextDecoder().decode(new Uint8Array(out.written)),
    "kind: List\n",
  );
});

Deno.test("writeAllSync fails when the rest does not fit", () => {
  const out = diskWithRoomFor(4);
  assert.throws(
    () => writeAllSync(out, new TextEncoder().encode("kind: List\n")),
    /No space left on device/,
  );
});
