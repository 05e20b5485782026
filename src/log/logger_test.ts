import assert from "node:assert/strict";
import { createLogger, readLogEnv } from "./logger.ts";

const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("readLogEnv reads KUDURRU_LOG_LEVEL and KUDURRU_LOG_FORMAT in any case", () => {
  assert.deepEqual(readLogEnv(env({})), { level: "info", json: false });
  assert.deepEqual(
    readLogEnv(env({ KUDURRU_LOG_LEVEL: "DEBUG", KUDURRU_LOG_FORMAT: "JSON" })),
    { level: "debug", json: true },
  );
  assert.deepEqual(
    readLogEnv(
      env({ KUDURRU_LOG_LEVEL: " Warn ", KUDURRU_LOG_FORMAT: "Text" }),
    ),
    { level: "warn", json: false },
  );
  assert.deepEqual(
    readLogEnv(env({ KUDURRU_LOG_LEVEL: "", KUDURRU_LOG_FORMAT: "" })),
    { level: "info", json: false },
    "empty means unset",
  );
});

Deno.test("readLogEnv refuses a value that is no level or format, naming the choices", () => {
  assert.throws(
    () => readLogEnv(env({ KUDURRU_LOG_LEVEL: "verbose" })),
    /^Error: KUDURRU_LOG_LEVEL="verbose" is not a log level: use debug, info, warn, error$/,
  );
  assert.throws(
    () => readLogEnv(env({ KUDURRU_LOG_FORMAT: "logfmt" })),
    /^Error: KUDURRU_LOG_FORMAT="logfmt" is not a log format: use text or json$/,
  );
});

Deno.test("createLogger follows the level it is given", () => {
  const lines: string[] = [];
  const logger = createLogger({
    ...readLogEnv(
      env({ KUDURRU_LOG_LEVEL: "WARN", KUDURRU_LOG_FORMAT: "Json" }),
    ),
    sink: (l) => lines.push(l),
  });
  logger.info("not shown");
  logger.warn("shown", { n: 1 });
  assert.equal(lines.length, 1);
  assert.deepEqual(
    { ...JSON.parse(lines[0]!), time: undefined },
    { time: undefined, level: "warn", msg: "shown", n: 1 },
  );
});
