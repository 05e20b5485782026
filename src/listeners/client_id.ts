/**
 * Client IDs of encrypted transports: the first label of the TLS server
 * name (SNI) under the configured domain for DoT and DoQ
 * (`phone.dns.example.net` with `listeners.clientIdDomain:
 * dns.example.net` is `phone`), the last path segment for DoH
 * (`/dns-query/phone`). A ClientGroup's `clientID` members match it
 * (src/blocking/policy/group_index.ts). Anything that is not one lower-case
 * label of letters, digits and '-' is no ID: the client is identified by
 * its address alone.
 */
import { CLIENT_ID_RE } from "../api/v1alpha1/clientgroup.ts";

/**
 * The client ID in `serverName`, when it is exactly one label under
 * `domain` (both compared without case and trailing dot).
 */
export function clientIdFromServerName(
  serverName: string | null | undefined,
  domain: string,
): string | undefined {
  if (!serverName || domain === "") return undefined;
  const name = serverName.toLowerCase().replace(/\.$/, "");
  const suffix = "." + domain.toLowerCase().replace(/\.$/, "");
  if (!name.endsWith(suffix)) return undefined;
  return clientId(name.slice(0, -suffix.length));
}

/**
 * The client ID of a DoH request: the path is `base` itself (no ID) or
 * `base/<id>`; undefined for no ID, null for a path that is neither.
 */
export function clientIdFromPath(
  path: string,
  base: string,
): string | undefined | null {
  const root = base.replace(/\/$/, "");
  if (path === root || path === root + "/") return undefined;
  if (!path.startsWith(root + "/")) return null;
  const id = clientId(path.slice(root.length + 1).toLowerCase());
  return id ?? null;
}

function clientId(label: string): string | undefined {
  return CLIENT_ID_RE.test(label) ? label : undefined;
}
