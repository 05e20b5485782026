/**
 * Keyset pagination for Store.list: objects are ordered by (namespace, name)
 * and a `continue` token names the last object of the previous page, so pages
 * stay stable while objects are added or removed elsewhere in the list.
 */
import type { KObject } from "../api/v1alpha1/meta.ts";

/** Where the previous page ended. */
export interface PagePosition {
  namespace: string;
  name: string;
}

/** A `continue` token that was not written by encodeContinue (HTTP 400). */
export class InvalidContinueError extends Error {
  constructor(readonly token: string, options?: ErrorOptions) {
    super(
      `Cannot resume listing: continue token "${token}" is malformed; list again without it`,
      options,
    );
    this.name = "InvalidContinueError";
  }
}

/** Orders objects like every driver must: by namespace, then name. */
export function compareObjectPosition(
  a: PagePosition,
  b: PagePosition,
): number {
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return 0;
}

export function positionOf(obj: KObject): PagePosition {
  return { namespace: obj.metadata.namespace ?? "", name: obj.metadata.name };
}

/** base64url of `{"ns":…,"n":…}`. */
export function encodeContinue(pos: PagePosition): string {
  const bytes = new TextEncoder().encode(
    JSON.stringify({ ns: pos.namespace, n: pos.name }),
  );
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(
    /=+$/,
    "",
  );
}

/** Throws InvalidContinueError. */
export function decodeContinue(token: string): PagePosition {
  try {
    const b64 = token.replaceAll("-", "+").replaceAll("_", "/");
    const binary = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    const parsed: unknown = JSON.parse(new TextDecoder().decode(bytes));
    if (
      typeof parsed === "object" && parsed !== null &&
      "ns" in parsed && typeof parsed.ns === "string" &&
      "n" in parsed && typeof parsed.n === "string"
    ) {
      return { namespace: parsed.ns, name: parsed.n };
    }
  } catch (err) {
    throw new InvalidContinueError(token, { cause: err });
  }
  throw new InvalidContinueError(token);
}

/**
 * One page of `sorted` (already ordered by compareObjectPosition and filtered)
 * after `continueToken`, with the token for the next page when more follow.
 */
export function pageOf(
  sorted: readonly KObject[],
  limit: number | undefined,
  continueToken: string | undefined,
): { items: KObject[]; continue?: string } {
  let start = 0;
  if (continueToken !== undefined && continueToken !== "") {
    const after = decodeContinue(continueToken);
    start = sorted.findIndex((o) =>
      compareObjectPosition(positionOf(o), after) > 0
    );
    if (start < 0) start = sorted.length;
  }
  if (limit === undefined || limit <= 0 || start + limit >= sorted.length) {
    return { items: sorted.slice(start) };
  }
  const items = sorted.slice(start, start + limit);
  return {
    items,
    continue: encodeContinue(positionOf(items[items.length - 1]!)),
  };
}

/** The most objects readPage asks for at once while a selector skips many. */
export const MAX_PAGE_BATCH = 1000;

/**
 * The page pageOf would cut from the whole filtered list, read through
 * `readAfter` (a keyset read: at most n objects, in compareObjectPosition
 * order, after a position) so that it costs what the page holds. It needs
 * limit + 1 accepted objects to know whether more follow; while `accept`
 * turns objects down it reads on in batches (doubling, at most
 * MAX_PAGE_BATCH or limit + 1) until it has them or the list ends.
 * `limit` is a positive integer. Throws InvalidContinueError.
 */
export function readPage(
  readAfter: (
    after: PagePosition | undefined,
    n: number,
  ) => readonly KObject[],
  limit: number,
  continueToken: string | undefined,
  accept: (obj: KObject) => boolean,
): { items: KObject[]; continue?: string } {
  let after = continueToken === undefined || continueToken === ""
    ? undefined
    : decodeContinue(continueToken);
  const want = limit + 1;
  const accepted: KObject[] = [];
  for (
    let batch = want;;
    batch = Math.max(want, Math.min(batch * 2, MAX_PAGE_BATCH))
  ) {
    const read = readAfter(after, batch);
    for (const obj of read) {
      if (!accept(obj)) continue;
      accepted.push(obj);
      if (accepted.length === want) break;
    }
    if (accepted.length === want || read.length < batch) break;
    after = positionOf(read[read.length - 1]!);
  }
  if (accepted.length <= limit) return { items: accepted };
  const items = accepted.slice(0, limit);
  return {
    items,
    continue: encodeContinue(positionOf(items[items.length - 1]!)),
  };
}
