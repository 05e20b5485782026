/**
 * GET /api/v1/node/encrypted-dns.mobileconfig: an Apple configuration
 * profile pointing a device at this server's DoH or DoT listener
 * (apple_dns_profile.ts), with the self-signed CA when the listeners use
 * one. `server` is the host name devices reach this node by: kudurru
 * cannot know it (a NAT, a reverse proxy, a public name), so it is asked.
 */
import { z } from "@hono/zod-openapi";
import type { Config } from "../../config/schema.ts";
import { CLIENT_ID_RE } from "../../api/v1alpha1/clientgroup.ts";
import { ApiError } from "../errors.ts";
import type { RoutesTable } from "../routes_table.ts";
import { errorResponses } from "./openapi_parts.ts";
import { renderDnsProfile } from "../apple_dns_profile.ts";

export interface EncryptedDnsRoutesDeps {
  config: Config;
  /** The self-signed CA's PEM (keys/dns-ca.crt), when the listeners use it. */
  selfSignedCa(): Promise<string | undefined>;
}

const HOST_NAME =
  /^(?=.{1,253}$)[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,62})(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,62}))*$/;

export function encryptedDnsRoutes(deps: EncryptedDnsRoutesDeps) {
  return (routes: RoutesTable): void => {
    routes.define({
      method: "get",
      path: "/api/v1/node/encrypted-dns.mobileconfig",
      guard: { resource: "node", verb: "get" },
      openapi: {
        tags: ["Node"],
        summary: "An Apple profile for DNS over HTTPS or TLS to this node",
        description:
          "A configuration profile (iOS, iPadOS, macOS) that sends the device's DNS to this node: over HTTPS at the first `listeners.doh` (`protocol=https`, the default when one is configured), or over TLS (`protocol=tls`, `listeners.dot`, port 853). `clientId` names the device (`path/<id>`, or `<id>.<listeners.clientIdDomain>` for TLS), so its ClientGroup applies. With `tls: { auto: selfsigned }` the profile carries the CA too. The profile is not signed.",
        request: {
          query: z.object({
            server: z.string().openapi({ example: "dns.example.net" }),
            clientId: z.string().optional().openapi({ example: "iphone" }),
            protocol: z.enum(["https", "tls"]).optional(),
            port: z.string().optional().openapi({ example: "443" }),
          }),
        },
        responses: {
          200: {
            description: "The profile",
            content: {
              "application/x-apple-aspen-config": { schema: z.string() },
            },
          },
          ...errorResponses,
        },
      },
    }, async (c) => {
      const { listeners } = deps.config;
      const server = (c.req.query("server") ?? "").toLowerCase()
        .replace(/\.$/, "");
      if (!HOST_NAME.test(server)) {
        throw new ApiError(
          "bad_request",
          "server must be the host name devices reach this node by, such as dns.example.net",
        );
      }
      const clientId = c.req.query("clientId");
      if (clientId !== undefined && !CLIENT_ID_RE.test(clientId)) {
        throw new ApiError(
          "bad_request",
          "clientId must be 1-63 lowercase letters, digits or '-'",
        );
      }
      const doh = listeners.doh[0];
      const protocol = c.req.query("protocol") ??
        (doh !== undefined ? "https" : "tls");
      if (protocol === "https" && doh === undefined) {
        throw new ApiError(
          "bad_request",
          "this node serves no DNS over HTTPS: configure listeners.doh, or ask for protocol=tls",
        );
      }
      if (protocol === "tls" && listeners.dot.length === 0) {
        throw new ApiError(
          "bad_request",
          "this node serves no DNS over TLS: configure listeners.dot, or ask for protocol=https",
        );
      }
      if (protocol !== "https" && protocol !== "tls") {
        throw new ApiError("bad_request", "protocol is https or tls");
      }
      const caPem = await deps.selfSignedCa();
      if (protocol === "https") {
        const port = portOf(c.req.query("port"), doh!);
        const path = doh!.path.replace(/\/$/, "");
        return profile(
          await renderDnsProfile({
            protocol: "HTTPS",
            server,
            serverUrl: `https://${server}${port === 443 ? "" : `:${port}`}${
              clientId ? `${path}/${clientId}` : path
            }`,
            ...(clientId && { clientId }),
            ...(caPem && { caPem }),
          }),
        );
      }
      if (clientId !== undefined && listeners.clientIdDomain === "") {
        throw new ApiError(
          "bad_request",
          "a client ID over TLS is a label under listeners.clientIdDomain, which is not set",
        );
      }
      return profile(
        await renderDnsProfile({
          protocol: "TLS",
          server,
          serverName: clientId
            ? `${clientId}.${listeners.clientIdDomain}`
            : server,
          ...(clientId && { clientId }),
          ...(caPem && { caPem }),
        }),
      );
    });
  };
}

/** The port in the URL: asked for, else the listener's own over TLS, else 443 (a proxy in front). */
function portOf(
  asked: string | undefined,
  doh: Config["listeners"]["doh"][number],
): number {
  if (asked !== undefined) {
    const port = Number(asked);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new ApiError("bad_request", "port must be 1-65535");
    }
    return port;
  }
  if (doh.tls === undefined) return 443;
  return Number(doh.address.slice(doh.address.lastIndexOf(":") + 1)) || 443;
}

function profile(text: string): Response {
  return new Response(text, {
    headers: {
      "content-type": "application/x-apple-aspen-config",
      "content-disposition": 'attachment; filename="kudurru-dns.mobileconfig"',
    },
  });
}
