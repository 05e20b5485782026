/**
 * `auth` and `rbac`: how people and programs log in and what they may do,
 * for the planned HTTP API (docs/design.md#secure-by-default). Cluster
 * scope, except the public URL, the identity providers, the Kubernetes
 * mode and the admin socket, which are hostOnly.
 */
import { z } from "zod";
import { duration, oneOf, text } from "./schema_fields.ts";

const claimSchema = (claim: string) =>
  z.strictObject({
    claim: z.string().min(1).default(claim).meta({ help: "Claim to read" }),
    prefix: z.string().default("").meta({
      help: 'Prefix added to the value, such as "corp:"',
    }),
  }).prefault({});

const identityProviderSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/).meta({
    help: "Short name in URLs",
  }),
  displayName: z.string().default("").meta({
    help: "Label on the login page; the id when empty",
  }),
  issuer: z.url().meta({ help: "OpenID Connect issuer URL" }),
  clientID: z.string().min(1).meta({ help: "Client ID of the web login" }),
  clientSecretFile: z.string().default("").meta({
    help: "File holding the client secret",
  }),
  clientSecret: z.string().default("").meta({
    help: "The client secret itself; prefer clientSecretFile",
    writeOnly: true,
  }),
  cliClientID: z.string().default("").meta({
    help:
      "Public client of `kudurru login`; bearer ID tokens must be issued to it (clientID when empty)",
  }),
  scopes: z.array(z.string()).default(["openid", "profile", "email"])
    .meta({ help: "Scopes requested at login" }),
  claimMappings: z.strictObject({
    username: claimSchema("preferred_username"),
    groups: claimSchema("groups"),
  }).prefault({}).meta({ help: "Which claims name the user and their groups" }),
  claimValidationRules: z.array(
    z.strictObject({
      claim: z.string().min(1).meta({ help: "Claim to check, such as hd" }),
      requiredValue: z.string().min(1).meta({
        help: "Value it must have (a list claim: must contain)",
      }),
      message: z.string().default("").meta({
        help: "What a refused user is told",
      }),
    }),
  ).default([]).meta({
    help:
      "Claims every login and bearer token must carry: {claim, requiredValue, message}; a string equals the value, a list contains it, booleans as true/false",
  }),
  provisioning: z.strictObject({
    autoProvision: z.enum(["always", "mapped-only", "never"]).default(
      "mapped-only",
    )
      .meta({
        help:
          "Who may log in: always (defaultRole without a binding), mapped-only (a binding), never (a User binding)",
      }),
    syncGroups: z.boolean().default(true).meta({
      help: "Refresh groups at every login",
    }),
    defaultRole: z.string().default("").meta({
      help:
        "Role of users no binding names, with autoProvision always; never admin",
    }),
  }).prefault({}),
});

/**
 * An absolute http(s) URL with nothing a base address cannot carry: no
 * user, query or fragment.
 */
function isBaseUrl(text: string): boolean {
  if (text === "") return true;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return (url.protocol === "https:" || url.protocol === "http:") &&
    url.username === "" && url.password === "" && url.search === "" &&
    url.hash === "" && !text.includes("?") && !text.includes("#");
}

export const authSchema = z.strictObject({
  publicURL: z.string().default("").refine(isBaseUrl, {
    message:
      "must be an absolute http:// or https:// URL without user, query or fragment, such as https://dns.example.com/kudurru",
  }).meta({
    help:
      "Address browsers reach kudurru at, path included, behind a reverse proxy (https://dns.example.com/kudurru): the base of login redirect URIs and of the web UI; empty: the request's own",
    // It decides where logins return, the cookies' Secure flag and the UI's
    // base: a property of the host's proxy, and a wrong value locks every
    // browser out, so it is set on the host, never through the API.
    hostOnly: true,
  }),
  localLogin: oneOf(["enabled", "admins-only", "disabled"], "enabled", {
    help:
      "Who may log in with a local password (the break-glass /login?local=1 stays)",
  }),
  bootstrap: z.strictObject({
    adminPasswordFile: text("", {
      help:
        "File holding the first admin password; generated and printed once when empty",
      envLocked: true,
    }),
    adminPassword: text("", {
      help: "The first admin password itself; prefer adminPasswordFile",
      envLocked: true,
      writeOnly: true,
    }),
  }).prefault({}),
  session: z.strictObject({
    /** Milliseconds (written "30m"). */
    idleTimeout: duration("30m", {
      help: "Logout after this long without a request",
    }),
    /** Milliseconds (written "12h"). */
    lifetime: duration("12h", { help: "Longest a session lasts" }),
    secure: oneOf(["auto", "always", "never"], "auto", {
      help:
        "Secure cookies: auto when TLS terminates here or a trusted proxy says https",
    }),
  }).prefault({}),
  tokens: z.strictObject({
    /** Milliseconds (written "0"); 0: no limit. */
    maxLifetime: duration("0", {
      help: "Longest lifetime of an API token; 0 means no limit",
    }),
  }).prefault({}),
  identityProviders: z.array(identityProviderSchema).default([]).meta({
    kind: "list of identity providers",
    help: "OpenID Connect providers offered on the login page",
    // A provider names a file to read (clientSecretFile) and carries a
    // secret: set on the host, never through the API.
    hostOnly: true,
  }),
  kubernetes: z.strictObject({
    mode: oneOf(["sar", "impersonate"], "sar", {
      help:
        "How Kubernetes identities are authorized: SubjectAccessReview or impersonation",
      hostOnly: true,
    }),
  }).prefault({}),
}).prefault({}).meta({
  // Read once at start.
  restartRequired: true,
  help: "Login, sessions and identity providers",
});

const subjectSchema = z.strictObject({
  kind: z.enum(["User", "Group", "ServiceAccount"]).meta({
    help: "Kind of subject",
  }),
  name: z.string().min(1).meta({
    help: "User name, prefixed group or account name",
  }),
  namespace: z.string().optional().meta({
    help: "Namespace of a Kubernetes service account",
  }),
});

/** One role binding: a role, where it applies, and who gets it. */
export const bindingSchema = z.strictObject({
  role: z.string().min(1).meta({
    help: "viewer, operator, admin, auditor or zone-admin",
  }),
  scope: z.strictObject({
    kind: z.enum(["cluster", "zone", "zonegroup", "clientgroup"]).default(
      "cluster",
    )
      .meta({ help: "What the role applies to" }),
    name: z.string().optional().meta({
      help: "Zone, label or client group name",
    }),
  }).prefault({}),
  subjects: z.array(subjectSchema).min(1).meta({ help: "Who gets the role" }),
});

export const rbacSchema = z.strictObject({
  bindings: z.array(bindingSchema).default([]).meta({
    kind: "list of bindings",
    help:
      "Role bindings declared in the file, in addition to RoleBinding objects",
  }),
}).prefault({}).meta({
  // Read once at start.
  restartRequired: true,
  help: "Role bindings",
});
