import assert from "node:assert/strict";
import { configSchema } from "../config/schema.ts";
import { memoryLogger } from "../log/logger.ts";
import { warnUnservedListeners } from "./unserved_listeners.ts";

Deno.test("a configured DoT or DoH listener that nothing serves is warned about, by address", () => {
  const config = configSchema.parse({
    listeners: {
      dot: [{
        address: "127.0.0.1:853",
        tls: { certFile: "/x.crt", keyFile: "/x.key" },
      }],
      doh: [{
        address: "[::1]:443",
        tls: { certFile: "/x.crt", keyFile: "/x.key" },
      }],
    },
  });
  const logger = memoryLogger();
  warnUnservedListeners(config.listeners, logger);
  const lines = logger.lines.map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => [l.level, l.msg]), [
    [
      "warn",
      "listeners.dot is configured, but this version of kudurru does not serve DNS-over-TLS yet: nothing listens on 127.0.0.1:853",
    ],
    [
      "warn",
      "listeners.doh is configured, but this version of kudurru does not serve DNS-over-HTTPS yet: nothing listens on [::1]:443",
    ],
  ]);
});

Deno.test("the default configuration warns about no listener", () => {
  const logger = memoryLogger();
  warnUnservedListeners(configSchema.parse({}).listeners, logger);
  assert.deepEqual(logger.lines, []);
});
