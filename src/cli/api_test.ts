import assert from "node:assert/strict";
import { apiCommand } from "./api.ts";
import { bufferIO, UsageError } from "./command.ts";
import { contextCommand } from "./context.ts";

const env = { HOME: "/nonexistent-home-for-kudurru-tests" };

Deno.test("kudurru api refuses a bad method, a path outside /api/, a GET body and a body that is not JSON", async () => {
  const cases: [string[], RegExp][] = [
    [["GET"], /give a method and a path/],
    [
      ["FETCH", "/api/v1/node"],
      /the method is one of GET, POST, PUT, PATCH, DELETE, not "FETCH"/,
    ],
    [["GET", "/healthz/ready"], /the path starts with \/api\//],
    [["GET", "/api/v1/node", "-d", "{}"], /a GET sends no body/],
    [
      ["POST", "/api/v1/cache/flush", "-d", "{name:"],
      /the body from -d is not JSON/,
    ],
    [
      ["POST", "/api/v1/cache/flush", "-d", "-"],
      /the body from standard input is not JSON/,
    ],
  ];
  for (const [args, message] of cases) {
    await assert.rejects(
      apiCommand.run(args, bufferIO("not json", env).io),
      (err: Error) => err instanceof UsageError && message.test(err.message),
      args.join(" "),
    );
  }
});

Deno.test("kudurru api and context without a login say to log in", async () => {
  await assert.rejects(
    apiCommand.run(["GET", "/api/v1/node"], bufferIO("", env).io),
    /not logged in to a server: run kudurru login --server URL --username USER first/,
  );
  const list = bufferIO("", env);
  assert.equal(await contextCommand.run(["list"], list.io), 0);
  assert.equal(list.stdout(), "");
  assert.match(
    list.stderr(),
    /^No contexts: connect to a server with kudurru login/,
  );
  await assert.rejects(
    contextCommand.run(["use", "lab"], bufferIO("", env).io),
    /there is no context "lab": run kudurru login --server URL first/,
  );
  await assert.rejects(
    contextCommand.run(["rename", "lab"], bufferIO("", env).io),
    (err: Error) =>
      err instanceof UsageError &&
      /unknown subcommand "rename"; the ones there are: list, use, delete/.test(
        err.message,
      ),
  );
});
