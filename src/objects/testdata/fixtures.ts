/** Shared test fixtures for src/objects: temp directories and small documents. */
import { join } from "node:path";
import { API_VERSION, type KObject } from "../../api/v1alpha1/meta.ts";
import { newRegistry, type Registry } from "../../metrics/registry.ts";
import {
  createMemoryStore,
  type MemoryStore,
} from "../../store/memory/memory_store.ts";

/** A temp directory holding an empty `objects.d/`, removed on dispose. */
export interface TempObjectsDir extends AsyncDisposable {
  root: string;
  /** <root>/objects.d */
  dir: string;
  write(name: string, text: string): Promise<void>;
  remove(name: string): Promise<void>;
  /**
   * Moves the file's mtime a minute into the past, as if it had stood still
   * since it was written: objects it dropped are deleted at once then, not
   * held as a write perhaps cut short (unsettled_files.ts).
   */
  settle(name: string): Promise<void>;
}

export async function tempObjectsDir(): Promise<TempObjectsDir> {
  const root = await Deno.makeTempDir({ prefix: "kudurru-objects-" });
  const dir = join(root, "objects.d");
  await Deno.mkdir(dir);
  return {
    root,
    dir,
    write: (name, text) => Deno.writeTextFile(join(dir, name), text),
    remove: (name) => Deno.remove(join(dir, name)),
    settle: (name) => {
      const past = new Date(Date.now() - 60_000);
      return Deno.utime(join(dir, name), past, past);
    },
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

/** A ClientGroup document as YAML. */
export function groupYaml(
  name: string,
  cidr = "10.0.0.0/8",
  namespace?: string,
): string {
  const ns = namespace ? `\n  namespace: ${namespace}` : "";
  return `apiVersion: ${API_VERSION}
kind: ClientGroup
metadata:
  name: ${name}${ns}
spec:
  clients:
  - cidr: ${cidr}
`;
}

/** A ClientGroup object, for inline lists and direct store writes. */
export function group(
  name: string,
  cidr = "10.0.0.0/8",
  namespace = "default",
): KObject {
  return {
    apiVersion: API_VERSION,
    kind: "ClientGroup",
    metadata: { name, namespace },
    spec: { clients: [{ cidr }] },
  };
}

/** A forward DNSZone document as YAML. */
export function zoneYaml(name: string, zoneName: string): string {
  return `apiVersion: ${API_VERSION}
kind: DNSZone
metadata: { name: ${name} }
spec: { zoneName: "${zoneName}", type: forward, forward: { upstreamGroup: default } }
`;
}

/** Joins documents into one multi-document stream. */
export function docs(...parts: string[]): string {
  return parts.join("---\n");
}

/** A fresh registry plus a reader for one sample's value. */
export function testRegistry(): Registry {
  return newRegistry();
}

export async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return undefined;
  const { values } = await metric.get();
  const hit = values.find((v) =>
    Object.entries(labels).every(([k, val]) => String(v.labels[k]) === val)
  );
  return hit?.value;
}

/** Waits until `check` holds, polling every 10 ms, failing after `ms`. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  ms = 3000,
): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`Condition not met within ${ms} ms`);
}

/** The object's key for store.get. */
export function key(kind: string, name: string, namespace = ""): {
  kind: string;
  namespace: string;
  name: string;
} {
  return { kind, namespace, name };
}

/** A memory store closed on dispose. */
export function storeFor(): MemoryStore & AsyncDisposable {
  const store = createMemoryStore();
  return Object.assign(store, { [Symbol.asyncDispose]: () => store.close() });
}
