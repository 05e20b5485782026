import assert from "node:assert/strict";
import { freePort } from "./free_port.ts";

Deno.test("freePort never hands out a port twice in a row of calls", () => {
  // The kernel may give a probe's port again at once; one config's
  // listeners each need their own.
  const ports = Array.from({ length: 100 }, () => freePort());
  assert.equal(new Set(ports).size, ports.length);
});
