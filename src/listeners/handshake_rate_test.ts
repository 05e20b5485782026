import assert from "node:assert/strict";
import { HandshakeRate } from "./handshake_rate.ts";

Deno.test("HandshakeRate gives one second's worth at once, then the rate", () => {
  let now = 1000;
  const rate = new HandshakeRate(4, () => now);
  const taken = () => {
    let n = 0;
    while (rate.take()) n++;
    return n;
  };
  assert.equal(taken(), 4);
  now += 250;
  assert.equal(taken(), 1);
  now += 100;
  assert.equal(taken(), 0, "0.4 of a token is none");
  now += 150;
  assert.equal(taken(), 1, "the 0.4 kept adds up");
  now += 60_000;
  assert.equal(taken(), 4, "never more than the burst");
});

Deno.test("HandshakeRate below one a second still admits one at a time", () => {
  let now = 0;
  const rate = new HandshakeRate(0.5, () => now);
  assert.equal(rate.take(), true);
  assert.equal(rate.take(), false);
  now += 1999;
  assert.equal(rate.take(), false);
  now += 1;
  assert.equal(rate.take(), true);
});
