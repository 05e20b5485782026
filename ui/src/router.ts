/**
 * The UI's routes: paths under the page's <base>, with every filter in the
 * query string so a view can be shared as a link. `route` is the current
 * one; navigate() changes it without a reload; the browser's back and
 * forward work.
 */
import { signal } from "@preact/signals";

export interface Route {
  /** The path below the base, without a leading slash ("" is the dashboard). */
  path: string;
  params: URLSearchParams;
}

/** The base path ("/" or, under a prefix, "/dns/"). */
function basePath(): string {
  return new URL(document.baseURI).pathname.replace(/\/?$/, "/");
}

function current(): Route {
  const base = basePath();
  const path = location.pathname.startsWith(base)
    ? location.pathname.slice(base.length)
    : location.pathname.replace(/^\//, "");
  return {
    path: path.replace(/\/$/, ""),
    params: new URLSearchParams(location.search),
  };
}

export const route = signal<Route>(current());

addEventListener("popstate", () => {
  route.value = current();
});

/** The href of `path` with `params` (values "" and undefined left out). */
export function href(
  path: string,
  params: Record<string, string | undefined> = {},
): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== "") search.set(key, value);
  }
  const query = search.toString();
  return `${basePath()}${path.replace(/^\//, "")}${query ? `?${query}` : ""}`;
}

/** Goes to `url` (from href()); `replace` keeps the history entry. */
export function navigate(url: string, opts: { replace?: boolean } = {}): void {
  if (opts.replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  route.value = current();
  if (!opts.replace) scrollTo(0, 0);
}

/** A click on an in-app link: navigate without a reload (keeps new-tab clicks). */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.target as Element | null)?.closest?.("a");
  if (
    !anchor || event.defaultPrevented || event.button !== 0 ||
    event.metaKey || event.ctrlKey || event.shiftKey || event.altKey ||
    anchor.target || anchor.hasAttribute("download") ||
    anchor.origin !== location.origin ||
    !anchor.pathname.startsWith(basePath()) ||
    anchor.pathname.startsWith(`${basePath()}api/`)
  ) {
    return;
  }
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
}
