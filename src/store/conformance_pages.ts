/**
 * Conformance: paged lists (limit + continue). A page must be exactly the
 * slice pageOf cuts from the whole filtered list, however the driver reads
 * it: across namespaces, in one namespace, with a label selector, and while
 * objects are created, changed and deleted between pages.
 */
import assert from "node:assert/strict";
import type { KObject } from "../api/v1alpha1/meta.ts";
import {
  clientGroup,
  type OpenStore,
  withMeta,
  withStore,
  zone,
} from "./conformance_fixtures.ts";
import {
  encodeContinue,
  InvalidContinueError,
  pageOf,
  type PagePosition,
} from "./pagination.ts";
import type { ListOptions, Store } from "./store.ts";

const KIND = "ClientGroup";
const names = (items: KObject[]) =>
  items.map((o) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`);
const key = (namespace: string, name: string) => ({
  kind: KIND,
  namespace,
  name,
});

/** Every page of a walk along `continue`, as names; checks each page's size. */
async function walk(
  store: Store,
  kind: string,
  opts: Omit<ListOptions, "continue"> & { limit: number },
): Promise<string[][]> {
  const pages: string[][] = [];
  let token: string | undefined;
  do {
    const page = await store.list(
      kind,
      token === undefined ? opts : { ...opts, continue: token },
    );
    assert.ok(page.items.length <= opts.limit);
    if (page.continue !== undefined) {
      assert.equal(
        page.items.length,
        opts.limit,
        "a page before the last is full",
      );
    }
    pages.push(names(page.items));
    token = page.continue;
    assert.ok(pages.length < 1000, "the walk ends");
  } while (token !== undefined);
  return pages;
}

async function add(
  store: Store,
  namespace: string,
  name: string,
  labels?: Record<string, string>,
): Promise<KObject> {
  return await store.apply(clientGroup(namespace, name, labels), {
    manager: "api",
  });
}

export function registerPageTests(name: string, open: OpenStore): void {
  const test = (what: string, fn: (store: Store) => Promise<void>) =>
    Deno.test(`${name} list ${what}`, () => withStore(open, fn));

  test("pages are the whole list cut after the token, for every limit and position", async (store) => {
    const objects: [string, string, Record<string, string> | undefined][] = [
      ["a", "k", { env: "prod" }],
      ["a", "m", undefined],
      ["b", "a", { env: "dev" }],
      ["b", "b", { env: "prod" }],
      ["b", "c", undefined],
      ["b", "d", { env: "prod" }],
      ["b", "e", undefined],
      ["c", "x", undefined],
      ["c", "y", undefined],
      ["c", "z", { env: "prod" }],
      ["d", "a", undefined],
    ];
    for (const [ns, n, labels] of objects) await add(store, ns, n, labels);
    await store.apply(zone("unrelated"), { manager: "api" });
    const positions: (PagePosition | undefined)[] = [
      undefined,
      ...objects.map(([namespace, name]) => ({ namespace, name })),
      // Positions no object holds: before all, between, after all.
      { namespace: "", name: "" },
      { namespace: "a", name: "a" },
      { namespace: "a", name: "z" },
      { namespace: "b", name: "bb" },
      { namespace: "bb", name: "a" },
      { namespace: "c", name: "" },
      { namespace: "e", name: "a" },
    ];
    for (const namespace of [undefined, "b", "c", "bb", "z"]) {
      for (const labelSelector of [undefined, "env=prod", "!env", "nope"]) {
        const filter: ListOptions = {
          ...(namespace !== undefined && { namespace }),
          ...(labelSelector !== undefined && { labelSelector }),
        };
        const whole = await store.list(KIND, filter);
        for (let limit = 1; limit <= objects.length + 1; limit++) {
          for (const pos of positions) {
            const token = pos && encodeContinue(pos);
            const want = pageOf(whole.items, limit, token);
            const got = await store.list(KIND, {
              ...filter,
              limit,
              ...(token !== undefined && { continue: token }),
            });
            const what = JSON.stringify({ ...filter, limit, pos });
            assert.deepEqual(got.items, want.items, what);
            assert.equal(got.continue, want.continue, what);
            assert.equal(got.resourceVersion, whole.resourceVersion, what);
          }
        }
      }
    }
  });

  test("pages run on across namespaces", async (store) => {
    for (
      const [ns, n] of [
        ["c", "b"],
        ["a", "a"],
        ["b", "c"],
        ["b", "a"],
        ["c", "a"],
        ["b", "b"],
      ]
    ) await add(store, ns!, n!);
    assert.deepEqual(await walk(store, KIND, { limit: 2 }), [
      ["a/a", "b/a"],
      ["b/b", "b/c"],
      ["c/a", "c/b"],
    ]);
    assert.deepEqual(await walk(store, KIND, { limit: 4 }), [
      ["a/a", "b/a", "b/b", "b/c"],
      ["c/a", "c/b"],
    ]);
    assert.deepEqual(await walk(store, KIND, { limit: 2, namespace: "b" }), [
      ["b/a", "b/b"],
      ["b/c"],
    ]);
    // A token that ended in another namespace: one before it lists the
    // whole namespace, one after it lists nothing.
    const first = await store.list(KIND, { limit: 1 });
    assert.deepEqual(names(first.items), ["a/a"]);
    const inB = await store.list(KIND, {
      namespace: "b",
      limit: 5,
      continue: first.continue!,
    });
    assert.deepEqual(names(inB.items), ["b/a", "b/b", "b/c"]);
    assert.equal(inB.continue, undefined);
    const afterC = encodeContinue({ namespace: "c", name: "a" });
    const none = await store.list(KIND, {
      namespace: "b",
      limit: 5,
      continue: afterC,
    });
    assert.deepEqual(none.items, []);
    assert.equal(none.continue, undefined);
    // Cluster-scoped objects page by name.
    for (const z of ["q", "p", "r"]) {
      await store.apply(zone(z), { manager: "api" });
    }
    assert.deepEqual(await walk(store, "DNSZone", { limit: 2 }), [
      ["/p", "/q"],
      ["/r"],
    ]);
  });

  test("pages with a label selector are full until the matches run out", async (store) => {
    // 40 objects in two namespaces; every seventh carries the label, and
    // non-matching objects follow the last match.
    const matching: string[] = [];
    for (let i = 0; i < 40; i++) {
      const ns = i < 20 ? "a" : "b";
      const n = `obj-${String(i).padStart(2, "0")}`;
      const labels = i % 7 === 3 ? { pick: "yes" } : { pick: "no" };
      await add(store, ns, n, labels);
      if (labels.pick === "yes") matching.push(`${ns}/${n}`);
    }
    assert.equal(matching.length, 6);
    for (let limit = 1; limit <= 7; limit++) {
      const pages = await walk(store, KIND, {
        limit,
        labelSelector: "pick=yes",
      });
      assert.deepEqual(pages.flat(), matching, `limit ${limit}`);
      assert.equal(pages.length, Math.max(1, Math.ceil(6 / limit)));
    }
    // Every object matches: a full page and a token.
    const all = await store.list(KIND, { limit: 6, labelSelector: "pick" });
    assert.equal(all.items.length, 6);
    assert.notEqual(all.continue, undefined);
    // Exactly `limit` matches: one page, no token.
    const six = await store.list(KIND, {
      limit: 6,
      labelSelector: "pick=yes",
    });
    assert.deepEqual(names(six.items), matching);
    assert.equal(six.continue, undefined);
    // In one namespace.
    assert.deepEqual(
      await walk(store, KIND, {
        limit: 2,
        namespace: "b",
        labelSelector: "pick=yes",
      }),
      [["b/obj-24", "b/obj-31"], ["b/obj-38"]],
    );
    // Nothing matches: one empty page.
    const empty = await store.list(KIND, { limit: 3, labelSelector: "x=y" });
    assert.deepEqual(empty.items, []);
    assert.equal(empty.continue, undefined);
  });

  test("pages stay in order while objects are created, changed and deleted between them", async (store) => {
    for (const [ns, n] of [["a", "k"], ["a", "m"], ["b", "k"], ["b", "m"]]) {
      await add(store, ns!, n!);
    }
    await add(store, "b", "p");
    await add(store, "c", "k");
    const first = await store.list(KIND, { limit: 3 });
    assert.deepEqual(names(first.items), ["a/k", "a/m", "b/k"]);
    // The token's own object goes, objects appear before and after it, one
    // on the next page goes and another changes.
    await store.delete(key("b", "k"));
    await add(store, "a", "z");
    await add(store, "b", "a");
    await add(store, "b", "l");
    await store.delete(key("b", "p"));
    const changed = await add(store, "b", "m", { changed: "yes" });
    const last = await add(store, "d", "a");
    const second = await store.list(KIND, {
      limit: 3,
      continue: first.continue!,
    });
    assert.deepEqual(names(second.items), ["b/l", "b/m", "c/k"]);
    assert.deepEqual(second.items[1], changed);
    assert.equal(second.resourceVersion, last.metadata.resourceVersion);
    await store.delete(key("c", "k"));
    const third = await store.list(KIND, {
      limit: 3,
      continue: second.continue!,
    });
    assert.deepEqual(names(third.items), ["d/a"]);
    assert.equal(third.continue, undefined);
    // Everything that is left, from the start.
    assert.deepEqual((await walk(store, KIND, { limit: 2 })).flat(), [
      "a/k",
      "a/m",
      "a/z",
      "b/a",
      "b/l",
      "b/m",
      "d/a",
    ]);
    // Deleting every object of the kind leaves an empty page.
    for (const n of ["a/k", "a/m", "a/z", "b/a", "b/l", "b/m", "d/a"]) {
      const [ns, name] = n.split("/");
      await store.delete(key(ns!, name!));
    }
    const gone = await store.list(KIND, { limit: 2 });
    assert.deepEqual(gone.items, []);
    assert.equal(gone.continue, undefined);
  });

  test("a page's resourceVersion is the store's when it was read", async (store) => {
    await add(store, "a", "k");
    await add(store, "a", "m");
    const z = await store.apply(zone("other"), { manager: "api" });
    const page = await store.list(KIND, { limit: 1 });
    assert.equal(page.resourceVersion, z.metadata.resourceVersion);
    const z2 = await store.apply(
      withMeta(zone("other"), { labels: { x: "1" } }),
      { manager: "api" },
    );
    const next = await store.list(KIND, { limit: 1, continue: page.continue! });
    assert.deepEqual(names(next.items), ["a/m"]);
    assert.equal(next.resourceVersion, z2.metadata.resourceVersion);
    const selected = await store.list(KIND, {
      limit: 1,
      labelSelector: "nope",
    });
    assert.equal(selected.resourceVersion, z2.metadata.resourceVersion);
  });

  test("continue tokens keep their format, and a bad one is refused", async (store) => {
    for (const [ns, n] of [["a", "x"], ["b", "l"], ["b", "n"], ["c", "a"]]) {
      await add(store, ns!, n!);
    }
    // base64url of {"ns":"b","n":"m"}, as earlier releases wrote it.
    const page = await store.list(KIND, {
      limit: 1,
      continue: "eyJucyI6ImIiLCJuIjoibSJ9",
    });
    assert.deepEqual(names(page.items), ["b/n"]);
    assert.equal(page.continue, encodeContinue({ namespace: "b", name: "n" }));
    assert.equal(page.continue, "eyJucyI6ImIiLCJuIjoibiJ9");
    const fromStart = await store.list(KIND, { limit: 2, continue: "" });
    assert.deepEqual(names(fromStart.items), ["a/x", "b/l"]);
    await assert.rejects(
      store.list(KIND, { limit: 2, continue: "%%%" }),
      InvalidContinueError,
    );
    await assert.rejects(
      store.list(KIND, { limit: 2, continue: btoa("[1]") }),
      InvalidContinueError,
    );
  });
}
