import assert from "node:assert/strict";
import { askServer } from "./ask_server.ts";
import { UpstreamEndpoint } from "./endpoint.ts";
import { ConnectionBusyError } from "./pipelined_connection.ts";
import { parseUpstreamServer } from "../config/upstream_server.ts";
import { question } from "./testdata/scripted_upstream.ts";

/** An endpoint whose transport fails every exchange with `error`. */
function failingWith(error: Error): UpstreamEndpoint {
  return new UpstreamEndpoint(parseUpstreamServer("tcp://192.0.2.53"), {
    createTransport: () => ({
      exchange: () => Promise.reject(error),
      close: () => {},
    }),
    bootstrap: undefined,
    now: Date.now,
  });
}

Deno.test("askServer marks a query our full connection could not send as busy, nothing else", async () => {
  const signal = new AbortController().signal;
  const request = question("www.example.org.");
  const busy = await askServer(
    failingWith(new ConnectionBusyError("100 queries already in flight")),
    request,
    signal,
  );
  assert.deepEqual(busy, {
    ok: false,
    why: "100 queries already in flight",
    busy: true,
  });
  const refused = await askServer(
    failingWith(new Error("connection refused")),
    request,
    signal,
  );
  assert.deepEqual(refused, { ok: false, why: "connection refused" });
});
