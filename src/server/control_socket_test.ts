/**
 * control_socket.ts's parts that open no socket. The tests that do are in
 * src/cli/cache_test.ts and src/cli/admin_test.ts: the test task allows one
 * control socket path for each, and the tests of one file run one after
 * another.
 */
import assert from "node:assert/strict";
import {
  classifyConnectError,
  ControlSocketDeniedError,
} from "./control_socket.ts";

Deno.test("a control socket this user may not use is 'permission denied', not 'no server'", () => {
  const path = "/srv/data/kudurru.sock";
  assert.deepEqual(
    classifyConnectError(new Deno.errors.NotFound("no such file")),
    { state: "absent" },
  );
  assert.deepEqual(
    classifyConnectError(new Deno.errors.ConnectionRefused("refused")),
    { state: "absent" },
  );
  assert.deepEqual(
    classifyConnectError(new Deno.errors.PermissionDenied("EACCES")),
    { state: "denied" },
  );
  assert.equal(
    classifyConnectError(new Deno.errors.NotCapable("--allow-net")).state,
    "error",
  );
  assert.equal(
    new ControlSocketDeniedError(path).message,
    "cannot reach the running server: run as the server's user (permission denied on /srv/data/kudurru.sock)",
  );
});
