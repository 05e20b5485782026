/**
 * First boot (docs/design.md#first-boot): when none of the seeded kinds has
 * any object, create a ClientGroup for everyone, a default Policy and a
 * forwarding root zone (plus an optional starter BlockList), all under
 * manager "bootstrap". On any later boot nothing is done: a default the
 * operator deleted stays deleted.
 */
import {
  API_VERSION,
  formatKey,
  keyOf,
  type KObject,
} from "../api/v1alpha1/meta.ts";
import { validateObject } from "../api/v1alpha1/validate.ts";
import { ManagedByError, NotFoundError, type Store } from "../store/store.ts";
import type { Logger } from "../log/logger.ts";

/** The manager of every seeded object. */
export const BOOTSTRAP_MANAGER = "bootstrap";

export interface BootstrapOptions {
  /** Namespace of the ClientGroup, the Policy and the starter list. @default "default" */
  namespace?: string;
  /** The upstream group the root zone forwards to. @default "default" */
  upstreamGroup?: string;
  /** The starter BlockList, if one ships with this build. */
  starterBlockList?: () => Promise<KObject | undefined>;
  logger?: Logger;
}

export interface SeedResult {
  /** True when none of the seeded kinds had any object. */
  firstBoot: boolean;
  /** formatKey of each object created, in creation order. */
  created: string[];
  /** Seeds that already existed (another replica won the race). */
  present: string[];
}

const SEEDED_KINDS = ["ClientGroup", "Policy", "DNSZone"] as const;

/**
 * Seeds a first boot. Throws when the store fails or a seed is invalid (a
 * programming error); the whole set is validated before the first write.
 */
export async function seedFirstBoot(
  store: Store,
  opts: BootstrapOptions = {},
): Promise<SeedResult> {
  const none: SeedResult = { firstBoot: false, created: [], present: [] };
  // Cheap kinds first, so a later boot never even builds the starter list.
  if (await anyExists(store, SEEDED_KINDS)) return none;
  const starter = await starterOf(opts);
  if (starter && await anyExists(store, ["BlockList"])) return none;
  const seeds = validated(buildSeeds(opts, starter));
  const result: SeedResult = { firstBoot: true, created: [], present: [] };
  for (const seed of seeds) {
    const name = formatKey(keyOf(seed));
    if (await exists(store, seed)) {
      result.present.push(name);
      continue;
    }
    try {
      await store.apply(seed, {
        manager: BOOTSTRAP_MANAGER,
        actor: BOOTSTRAP_MANAGER,
      });
      result.created.push(name);
    } catch (e) {
      // Another replica seeded it first under some other manager: it is there.
      if (!(e instanceof ManagedByError)) throw e;
      result.present.push(name);
    }
  }
  opts.logger?.info("Seeded first boot", {
    created: result.created,
    present: result.present,
  });
  return result;
}

/** The seed set in creation order (starter list, ClientGroup, Policy, root zone). */
export async function bootstrapObjects(
  opts: BootstrapOptions = {},
): Promise<KObject[]> {
  return buildSeeds(opts, await starterOf(opts));
}

function buildSeeds(
  opts: BootstrapOptions,
  starter: KObject | undefined,
): KObject[] {
  const namespace = opts.namespace || "default";
  const seeds: KObject[] = [];
  if (starter) seeds.push(starter);
  seeds.push({
    apiVersion: API_VERSION,
    kind: "ClientGroup",
    metadata: { name: "default", namespace },
    spec: { clients: [{ cidr: "0.0.0.0/0" }, { cidr: "::/0" }] },
  });
  seeds.push({
    apiVersion: API_VERSION,
    kind: "Policy",
    metadata: { name: "default", namespace },
    spec: {
      clientGroupRefs: ["default"],
      ...(starter ? { blockListRefs: [starter.metadata.name] } : {}),
    },
  });
  seeds.push({
    apiVersion: API_VERSION,
    kind: "DNSZone",
    metadata: { name: "root" },
    spec: {
      zoneName: ".",
      type: "forward",
      forward: { upstreamGroup: opts.upstreamGroup || "default" },
    },
  });
  return seeds;
}

async function starterOf(opts: BootstrapOptions): Promise<KObject | undefined> {
  const list = await opts.starterBlockList?.();
  if (!list) return undefined;
  const copy = structuredClone(list);
  copy.apiVersion ||= API_VERSION;
  copy.kind ||= "BlockList";
  copy.metadata.namespace ||= opts.namespace || "default";
  return copy;
}

/** Validates (and defaults) every seed, or throws before anything is written. */
function validated(seeds: KObject[]): KObject[] {
  return seeds.map((seed) => {
    const r = validateObject(seed);
    if (!r.ok) {
      const issues = r.issues.map((i) => `${i.path}: ${i.message}`).join("; ");
      throw new Error(
        `Cannot seed first boot: ${
          formatKey(keyOf(seed))
        } is invalid: ${issues}`,
      );
    }
    return r.object;
  });
}

async function anyExists(
  store: Store,
  kinds: readonly string[],
): Promise<boolean> {
  for (const kind of kinds) {
    const list = await store.list(kind, { limit: 1 });
    if (list.items.length > 0) return true;
  }
  return false;
}

async function exists(store: Store, obj: KObject): Promise<boolean> {
  try {
    await store.get(keyOf(obj));
    return true;
  } catch (e) {
    if (e instanceof NotFoundError) return false;
    throw e;
  }
}
