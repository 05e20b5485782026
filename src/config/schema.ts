/**
 * The kudurru.yaml schema. It is also the settings metadata table: every key
 * carries its help and flags in `.meta()` (see schema_fields.ts), and
 * settings_table.ts flattens it for env overrides, the JSON Schema,
 * `kudurru config` and docs/configuration.md.
 */
import { z } from "zod";
import { flag, oneOf, text } from "./schema_fields.ts";
import { listenersSchema, nodeSchema } from "./schema_listeners.ts";
import {
  blockingSchema,
  cacheSchema,
  querylogSchema,
  ratelimitSchema,
  upstreamsSchema,
} from "./schema_resolver.ts";
import { authSchema, rbacSchema } from "./schema_auth.ts";

const HOST_RESTART = { hostOnly: true, restartRequired: true } as const;

const edgeSchema = z.strictObject({
  enabled: flag(false, {
    help: "Run the dnsdist supervisor in front of this node",
  }),
  authoritativeCache: flag(false, {
    help:
      "Let dnsdist cache authoritative answers briefly, flushed on serial change",
  }),
}).prefault({}).meta({
  help: "The dnsdist edge (compose edge profile)",
  ...HOST_RESTART,
});

const vipSchema = z.strictObject({
  enabled: flag(false, { help: "Hold a virtual IP with keepalived (VRRP)" }),
  provider: oneOf(["keepalived", "kube-vip", "metallb"], "keepalived", {
    help:
      "Who holds the address: keepalived here, or kube-vip/metallb in Kubernetes",
  }),
}).prefault({}).meta({ help: "Virtual IP failover", ...HOST_RESTART });

const clusterSchema = z.strictObject({
  role: oneOf(["standalone", "static"], "standalone", {
    help:
      "static: every node runs the same file-managed objects (kudurru.yaml and objects.d distributed by git, ansible or rsync), and the API refuses to change kudurru.io objects",
  }),
}).prefault({}).meta({
  help: "How this node shares its objects with others",
  ...HOST_RESTART,
});

/** The whole configuration file. Unknown keys are errors at every level. */
export const configSchema = z.strictObject({
  node: nodeSchema,
  listeners: listenersSchema,
  upstreams: upstreamsSchema,
  cache: cacheSchema,
  blocking: blockingSchema,
  ratelimit: ratelimitSchema,
  querylog: querylogSchema,
  auth: authSchema,
  rbac: rbacSchema,
  edge: edgeSchema,
  vip: vipSchema,
  cluster: clusterSchema,
  objects: z.array(z.record(z.string(), z.unknown())).default([]).meta({
    kind: "list of objects",
    help:
      "Inline kudurru.io objects (managedBy: file:kudurru.yaml), checked by the objects loader",
    ...HOST_RESTART,
  }),
  objectsDir: text("/etc/kudurru/objects.d", {
    help:
      "Directory of object files (*.yaml, *.yml, *.json; subdirectories are not read); empty disables it",
    defaultText:
      "objects.d next to the config file; /etc/kudurru/objects.d as root " +
      "and ./objects.d otherwise when there is no file",
    ...HOST_RESTART,
  }),
});

/**
 * The configuration after defaults and parsing: what the rest of kudurru
 * reads. Durations are numbers of milliseconds and sizes numbers of bytes
 * (`cache.minTTL: 5s` in the file is `minTTL: 5000` here); nothing
 * downstream parses text again.
 */
export type Config = z.output<typeof configSchema>;
/**
 * The configuration as written in the file and the environment: durations
 * and sizes as text ("5s", "64MiB"), every key optional.
 */
export type ConfigInput = z.input<typeof configSchema>;
