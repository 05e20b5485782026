/**
 * The admin routes of the control socket (`GET /v1/admin/users`,
 * `POST /v1/admin/reset-password`, `POST /v1/admin/tokens`) and the client
 * side that `kudurru admin` asks them through. The socket itself, its
 * other routes and the helpers both sides share are in control_socket.ts.
 * Whoever can connect to the socket (mode 0600: the server's user, and
 * root) may administer the server without a login.
 *
 * The two modules import each other (the socket routes here, this uses its
 * helpers): neither may use the other's bindings when it is first loaded,
 * only inside functions.
 */
import type { Logger } from "../log/logger.ts";
import type { TokenScope } from "../api/v1alpha1/auth_kinds.ts";
import {
  type AdminActions,
  AdminError,
  type AdminRefusal,
  type AdminToken,
  type AdminTokenRequest,
  type PasswordReset,
  type ResetOptions,
} from "./admin_actions.ts";
import { type UserSummary } from "../auth/accounts.ts";
import { join } from "node:path";
import {
  CONTROL_SOCKET_FILE,
  controlRequest,
  json,
  jsonBody,
  noSuchEndpoint,
  objectOf,
  reachServer,
} from "./control_socket.ts";

/** The admin endpoints, under ADMIN_PREFIX. */
export const ADMIN_PREFIX = "/v1/admin/";

/** The status each refusal of an admin action is answered with. */
const REFUSAL_STATUS: Readonly<Record<AdminRefusal, number>> = {
  not_found: 404,
  invalid: 400,
  conflict: 409,
};

/** `POST /v1/admin/reset-password`. */
export interface ResetPasswordRequest {
  user: string;
  /** The new password; absent: the server generates one and answers it. */
  password?: string;
  /** Also remove the user's TOTP (for a lost authenticator). */
  removeTotp?: boolean;
}

/**
 * `GET /v1/admin/users`, `POST /v1/admin/reset-password` and
 * `POST /v1/admin/tokens`. A refused action answers `{error, reason}`;
 * the reason tells a refusal from an endpoint this server does not have.
 * Passwords and token texts are never logged.
 */
export async function adminRoute(
  req: Request,
  pathname: string,
  admin: AdminActions,
  logger: Logger,
): Promise<Response> {
  const method = pathname === "/v1/admin/users" ? "GET" : "POST";
  if (
    !["/v1/admin/users", "/v1/admin/reset-password", "/v1/admin/tokens"]
      .includes(pathname)
  ) {
    return noSuchEndpoint(pathname);
  }
  if (req.method !== method) return json(405, { error: `use ${method}` });
  try {
    if (pathname === "/v1/admin/users") {
      return json(200, { items: await admin.listUsers() });
    }
    const body = await jsonBody(req);
    if (body instanceof Response) return body;
    if (pathname === "/v1/admin/reset-password") {
      const parsed = resetRequestOf(body);
      if (typeof parsed === "string") return json(400, { error: parsed });
      const reset = await admin.resetPassword(
        parsed.user,
        parsed.password,
        { removeTotp: parsed.removeTotp },
      );
      logger.info("Password reset through the control socket", {
        user: reset.user,
        password: reset.generatedPassword === undefined
          ? "as given"
          : "generated",
        ...(reset.totpRemoved !== undefined &&
          { totp: reset.totpRemoved ? "removed" : "was off" }),
      });
      return json(200, reset);
    }
    const parsed = tokenRequestOf(body);
    if (typeof parsed === "string") return json(400, { error: parsed });
    const made = await admin.createToken(parsed);
    logger.info("API token made through the control socket", {
      id: made.id,
      owner: `${made.owner.kind}/${made.owner.name}`,
      expiresAt: made.expiresAt ?? "never",
    });
    return json(201, made);
  } catch (err) {
    if (err instanceof AdminError) {
      return json(REFUSAL_STATUS[err.reason], {
        error: err.message,
        reason: err.reason,
      });
    }
    logger.error("Local administration failed", {
      endpoint: pathname,
      error: err,
    });
    const why = err instanceof Error ? err.message : String(err);
    return json(500, { error: `the server could not do it: ${why}` });
  }
}

function resetRequestOf(body: unknown): ResetPasswordRequest | string {
  const fields = objectOf(body, ["user", "password", "removeTotp"]);
  if (typeof fields === "string") return fields;
  const { user, password, removeTotp } = fields;
  if (typeof user !== "string" || user === "") {
    return '"user" must be a user name';
  }
  if (password !== undefined && typeof password !== "string") {
    return '"password" must be a string';
  }
  if (removeTotp !== undefined && typeof removeTotp !== "boolean") {
    return '"removeTotp" must be true or false';
  }
  return {
    user,
    ...(password !== undefined && { password: password as string }),
    ...(removeTotp !== undefined && { removeTotp }),
  };
}

function tokenRequestOf(body: unknown): AdminTokenRequest | string {
  const fields = objectOf(body, [
    "user",
    "serviceAccount",
    "name",
    "scopes",
    "expiresInSeconds",
  ]);
  if (typeof fields === "string") return fields;
  const { user, serviceAccount, name, scopes, expiresInSeconds } = fields;
  for (
    const [key, value] of [["user", user], ["serviceAccount", serviceAccount]]
  ) {
    if (value !== undefined && (typeof value !== "string" || value === "")) {
      return `"${key}" must be a name`;
    }
  }
  if (typeof name !== "string") return '"name" must be a string';
  if (expiresInSeconds !== undefined && typeof expiresInSeconds !== "number") {
    return '"expiresInSeconds" must be a number';
  }
  const parsedScopes = scopesOf(scopes);
  if (typeof parsedScopes === "string") return parsedScopes;
  return {
    ...(user !== undefined && { user: user as string }),
    ...(serviceAccount !== undefined &&
      { serviceAccount: serviceAccount as string }),
    name,
    ...(parsedScopes !== undefined && { scopes: parsedScopes }),
    ...(expiresInSeconds !== undefined && { expiresInSeconds }),
  };
}

/** The scopes' shape; which roles and names they may hold is the action's check. */
function scopesOf(scopes: unknown): TokenScope[] | undefined | string {
  if (scopes === undefined) return undefined;
  if (!Array.isArray(scopes)) return '"scopes" must be a list';
  const out: TokenScope[] = [];
  for (const [i, item] of scopes.entries()) {
    const where = `scopes[${i}]`;
    const fields = objectOf(item, ["role", "scope"], where);
    if (typeof fields === "string") return fields;
    if (typeof fields.role !== "string") {
      return `${where}.role must be a string`;
    }
    if (fields.scope === undefined) {
      out.push({ role: fields.role });
      continue;
    }
    const scope = objectOf(fields.scope, ["kind", "name"], `${where}.scope`);
    if (typeof scope === "string") return scope;
    if (scope.kind !== "cluster" && scope.kind !== "zone") {
      return `${where}.scope.kind must be cluster or zone`;
    }
    if (scope.name !== undefined && typeof scope.name !== "string") {
      return `${where}.scope.name must be a string`;
    }
    out.push({
      role: fields.role,
      scope: {
        kind: scope.kind,
        ...(scope.name !== undefined && { name: scope.name as string }),
      },
    });
  }
  return out;
}

/**
 * The running server has no admin endpoints, or not the part asked for
 * (`what` it cannot do): it is older, or was started without them.
 */
export class AdminNotOfferedError extends Error {
  constructor(
    readonly path: string,
    what = "does not offer local administration",
  ) {
    super(
      `the server running on ${path} ${what} (it is older): restart it with this version of kudurru, or stop it and run this again to change the data directory directly`,
    );
    this.name = "AdminNotOfferedError";
  }
}

/**
 * One admin request to the server on `<dataDir>/kudurru.sock`: the answer
 * of a 2xx, else the refusal as an AdminError (or an Error for anything
 * else the server says).
 *
 * @throws {ServerNotRunningError} when no server listens there
 * @throws {ControlSocketDeniedError} when this user may not use the socket
 * @throws {AdminNotOfferedError} when the server has no admin endpoints
 * @throws {AdminError} when the server refuses the action
 */
async function adminRequest(
  dataDir: string,
  endpoint: string,
  body?: unknown,
): Promise<unknown> {
  const path = await reachServer(dataDir);
  const { status, body: answer } = await controlRequest(
    path,
    endpoint,
    body === undefined ? { method: "GET" } : {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    },
  );
  if (status >= 200 && status < 300) return answer;
  const refusal = answer as { error?: string; reason?: AdminRefusal };
  if (status === 404 && refusal.reason === undefined) {
    throw new AdminNotOfferedError(path);
  }
  const message = refusal.error ?? `the server answered ${status}`;
  if (refusal.reason !== undefined && refusal.reason in REFUSAL_STATUS) {
    throw new AdminError(refusal.reason, message);
  }
  throw new Error(message);
}

/**
 * Asks the running server to reset `user`'s password: to `password`, or
 * to one it generates and answers (`generatedPassword`); with
 * `removeTotp`, its TOTP too.
 *
 * @throws see adminRequest; {AdminNotOfferedError} too when `removeTotp`
 *   is asked of a server too old to remove TOTP (it then changed nothing)
 */
export async function requestPasswordReset(
  dataDir: string,
  user: string,
  password?: string,
  reset: ResetOptions = {},
): Promise<PasswordReset> {
  const body: ResetPasswordRequest = {
    user,
    ...(password !== undefined && { password }),
    ...(reset.removeTotp && { removeTotp: true }),
  };
  try {
    return await adminRequest(
      dataDir,
      "/v1/admin/reset-password",
      body,
    ) as PasswordReset;
  } catch (err) {
    // An older server refuses the field it does not know, before any change.
    if (
      body.removeTotp && !(err instanceof AdminError) &&
      err instanceof Error && err.message === 'unknown field "removeTotp"'
    ) {
      throw new AdminNotOfferedError(
        join(dataDir, CONTROL_SOCKET_FILE),
        "cannot remove TOTP",
      );
    }
    throw err;
  }
}

/**
 * Asks the running server to make an API token; the answer holds its text.
 *
 * @throws see adminRequest
 */
export async function requestAdminToken(
  dataDir: string,
  request: AdminTokenRequest,
): Promise<AdminToken> {
  return await adminRequest(dataDir, "/v1/admin/tokens", request) as AdminToken;
}

/**
 * The running server's users.
 *
 * @throws see adminRequest
 */
export async function requestUserList(
  dataDir: string,
): Promise<UserSummary[]> {
  const answer = await adminRequest(dataDir, "/v1/admin/users") as {
    items?: UserSummary[];
  };
  return answer.items ?? [];
}
