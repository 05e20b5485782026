/**
 * Where browsers reach kudurru: `auth.publicURL` when set (behind a reverse
 * proxy that terminates TLS or serves kudurru under a path of its own,
 * stripped or not), else the request's origin with
 * `listeners.api.pathPrefix`. What a provider is told to send the browser
 * back to, and the web UI's <base>, are built from it.
 */

/** `auth.publicURL` without a trailing slash ("" when unset). */
export function normalizePublicUrl(publicURL: string): string {
  return publicURL.trim().replace(/\/+$/, "");
}

/**
 * The path part of where browsers reach kudurru ("" or "/kudurru"): the
 * path of `publicURL` when set, else `pathPrefix`.
 */
export function publicPath(publicURL: string, pathPrefix: string): string {
  if (publicURL === "") return pathPrefix;
  return new URL(publicURL).pathname.replace(/\/+$/, "");
}
