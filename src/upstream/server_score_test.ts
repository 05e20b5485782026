import assert from "node:assert/strict";
import { ServerScore, UNKNOWN_RTT_MS } from "./server_score.ts";

Deno.test("ServerScore starts at the unknown RTT", () => {
  assert.equal(new ServerScore(() => 0).score(), UNKNOWN_RTT_MS);
});

Deno.test("ServerScore smooths RTT samples", () => {
  const score = new ServerScore(() => 0);
  score.recordAnswer(100);
  score.recordAnswer(0);
  assert.equal(score.srttMs, 70);
});

Deno.test("ServerScore penalises failures and recovers with time", () => {
  let now = 0;
  const score = new ServerScore(() => now);
  score.recordAnswer(10);
  score.recordFailure();
  const failed = score.score();
  assert.ok(failed > 500, `score after a failure ${failed}`);
  now += 5 * 60_000;
  assert.ok(score.score() < 12, `score five minutes later ${score.score()}`);
});

Deno.test("ServerScore recovers after answers", () => {
  const score = new ServerScore(() => 0);
  score.recordFailure();
  score.recordFailure();
  for (let i = 0; i < 10; i++) score.recordAnswer(10);
  assert.ok(score.score() < 15, `score ${score.score()}`);
});

Deno.test("ServerScore raises the RTT of a server beaten by another", () => {
  const score = new ServerScore(() => 0);
  score.recordAnswer(5);
  score.recordSlowerThan(105);
  assert.equal(score.srttMs, 35);
  assert.equal(score.penalty, 0);
});

Deno.test("ServerScore failing: ~15 s after one failure, ~33 s after two, over at the next answer", () => {
  let now = 0;
  const score = new ServerScore(() => now);
  assert.equal(score.failing, false);
  score.recordFailure();
  assert.equal(score.failing, true);
  now = 15_000;
  assert.equal(score.failing, true);
  now = 16_000;
  assert.equal(score.failing, false);
  score.recordFailure();
  score.recordFailure();
  now += 32_000;
  assert.equal(score.failing, true);
  score.recordAnswer(20);
  assert.equal(score.failing, false);
});

Deno.test("ServerScore failure answers cost the score but never make it failing", () => {
  const score = new ServerScore(() => 0);
  score.recordAnswer(10);
  score.recordFailureAnswer();
  score.recordFailureAnswer();
  assert.ok(score.score() > 1000, `score ${score.score()}`);
  assert.equal(score.failing, false);
  // The server answered: a timeout before is forgiven as by any answer.
  score.recordFailure();
  assert.equal(score.failing, true);
  score.recordFailureAnswer();
  assert.equal(score.failing, false);
});
