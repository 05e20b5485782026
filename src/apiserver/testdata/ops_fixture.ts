/**
 * The API with the operations, node and audit routes, wired as the server
 * wires them but over a memory Store: real health checks, a real objects
 * loader and the real audit rows; only what needs a running server (the
 * DNS listeners' cache, the list fetcher's downloads, the snapshot they
 * serve) is a recording stand-in the test steers.
 */
import { API_VERSION } from "../../api/v1alpha1/meta.ts";
import { type Config, configSchema } from "../../config/schema.ts";
import { createHealth, type Health } from "../../health/health.ts";
import type { BoundAddress } from "../../listeners/listeners.ts";
import {
  createObjectsLoader,
  type ObjectsLoader,
} from "../../objects/loader.ts";
import { queryMemoryAudit } from "../../store/memory/memory_audit.ts";
import type { MemoryStore } from "../../store/memory/memory_store.ts";
import type { KObject, ObjectKey } from "../../store/store.ts";
import { auditRoutes } from "../routes/audit_routes.ts";
import { encryptedDnsRoutes } from "../routes/encrypted_dns_routes.ts";
import { nodeRoutes } from "../routes/node_routes.ts";
import {
  type ListRefreshResult,
  operationsRoutes,
} from "../routes/operations_routes.ts";
import {
  ADMIN_PASSWORD,
  type ApiClient,
  type ApiFixture,
  apiFixture,
} from "./api_fixture.ts";

export const STARTED_AT = "2026-06-01T11:00:00.000Z";

/** What the stand-ins recorded, and how they answer. */
export interface OpsFixture extends ApiFixture {
  store: MemoryStore;
  config: Config;
  /** Logged in as admin (ADMIN_PASSWORD). */
  admin: ApiClient;
  /** A token of admin's narrowed to the viewer role. */
  viewer: ApiClient;
  health: Health;
  loader: ObjectsLoader;
  /** Every flushCache call, in order; each answers `flushAnswer`. */
  flushes: { name: string | undefined; subtree: boolean }[];
  flushAnswer: number;
  /** Every refreshList call; each answers what `refresh` returns. */
  refreshes: ObjectKey[];
  refresh: (key: ObjectKey) => Promise<ListRefreshResult>;
  bound: BoundAddress[];
  down: string[];
  snapshot: { version: number; builtAt: string } | undefined;
  /** What the encrypted-DNS profile route reads as the self-signed CA. */
  selfSignedCa: string | undefined;
}

/** The fixture; `config` as kudurru.yaml writes it. */
export async function opsFixture(
  opts: { config?: Record<string, unknown>; refreshWaitMs?: number } = {},
): Promise<OpsFixture> {
  const health = createHealth();
  // The stand-ins read the fixture, so a test steers them by its fields.
  const held: { fixture?: OpsFixture } = {};
  const the = () => held.fixture!;
  let loader: ObjectsLoader | undefined;
  let config: Config | undefined;
  const f = await apiFixture({
    ...(opts.config !== undefined && { config: opts.config }),
    extraRoutes: (shared) => {
      const store = shared.store as MemoryStore;
      config = configSchema.parse({
        node: { name: "test", dataDir: "/var/lib/kudurru" },
        objectsDir: "",
        ...opts.config,
      });
      loader = createObjectsLoader({
        store,
        inline: [
          {
            apiVersion: API_VERSION,
            kind: "ClientGroup",
            metadata: { name: "kids" },
            spec: { colour: "red" },
          },
        ],
        inlineSource: "kudurru.yaml",
        logger: shared.logger,
      });
      return [
        operationsRoutes({
          store,
          now: shared.now,
          blockingConfigured: config.blocking.enabled,
          flushCache(name, o) {
            the().flushes.push({ name, subtree: o?.subtree === true });
            return Promise.resolve(the().flushAnswer);
          },
          refreshList(key) {
            the().refreshes.push(key);
            return the().refresh(key);
          },
          ...(opts.refreshWaitMs !== undefined &&
            { refreshWaitMs: opts.refreshWaitMs }),
        }),
        nodeRoutes({
          config,
          configSource: "/etc/kudurru/kudurru.yaml",
          startedAt: STARTED_AT,
          now: shared.now,
          storeInfo: () => store.info(),
          dnsListeners: () => ({ bound: the().bound, down: the().down }),
          snapshot: () => the().snapshot,
          readiness: () => health.ready(),
          loaderStatus: () => loader!.status(),
          permits: shared.permits,
        }),
        encryptedDnsRoutes({
          config,
          selfSignedCa: () => Promise.resolve(the().selfSignedCa),
        }),
        auditRoutes({
          readAudit: (q) =>
            Promise.resolve().then(() => queryMemoryAudit(store.audit, q)),
          now: shared.now,
        }),
      ];
    },
  });
  const admin = f.client();
  const login = await admin.login("admin", ADMIN_PASSWORD);
  if (login.status !== 200) throw new Error(JSON.stringify(login.body));
  const made = await admin.request("POST", "/api/v1/tokens", {
    description: "dashboard",
    scopes: [{ role: "viewer" }],
  });
  if (made.status !== 201) throw new Error(JSON.stringify(made.body));
  const viewer = f.client();
  viewer.token = made.body.data.token;
  const fixture: OpsFixture = Object.assign(f, {
    store: f.store as MemoryStore,
    config: config!,
    admin,
    viewer,
    health,
    loader: loader!,
    flushes: [],
    flushAnswer: 0,
    refreshes: [],
    refresh: (): Promise<ListRefreshResult> =>
      Promise.resolve({ state: "fetched", sources: [] }),
    bound: [],
    down: [],
    snapshot: undefined,
    selfSignedCa: undefined,
  });
  held.fixture = fixture;
  return fixture;
}

/** A BlockList with one URL source (enabled or not). */
export function blockList(
  name: string,
  opts: { enabled?: boolean; namespace?: string } = {},
): KObject {
  return {
    apiVersion: API_VERSION,
    kind: "BlockList",
    metadata: { name, namespace: opts.namespace ?? "default" },
    spec: {
      sources: [{
        url: `https://lists.example/${name}.txt`,
        format: "hosts",
        enabled: opts.enabled ?? true,
      }],
    },
  };
}
