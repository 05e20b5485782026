/**
 * Local administration on a Store: reset a user's password, make an API
 * token, list the users. `kudurru admin` runs these through the control
 * socket of a running server, or on the data directory's state.db when no
 * server runs, so an admin locked out of the HTTP API can get back in with
 * the server stopped. They follow the HTTP API's rules (password policy,
 * token scopes and auth.tokens.maxLifetime) and write as "local-admin", so
 * the audit trail tells these changes from the API's. Nothing here returns
 * a password hash, a TOTP secret or a token's hash: only a generated
 * password and a new token's text, once. A reset may also remove the
 * user's TOTP, for someone who lost the authenticator.
 */
import type { TokenScope, User } from "../api/v1alpha1/auth_kinds.ts";
import {
  findUser,
  setPassword,
  type UserSummary,
  userSummary,
} from "../auth/accounts.ts";
import { generatePassword, passwordProblem } from "../auth/password.ts";
import { createToken, type TokenOwner } from "../auth/tokens.ts";
import { MAX_DURATION_MS } from "../config/duration.ts";
import { validateTokenScopes } from "../rbac/validate.ts";
import { NotFoundError, type Store } from "../store/store.ts";

/** The actor of every audit row these actions write. */
export const LOCAL_ADMIN_ACTOR = "local-admin";

/** Longest token name: APIToken's description holds it (auth_kinds.ts). */
export const MAX_TOKEN_NAME = 1000;

/** Most scopes one token carries (auth_kinds.ts). */
export const MAX_TOKEN_SCOPES = 32;

/** Why an action was refused: the control socket answers 404, 400 or 409. */
export type AdminRefusal = "not_found" | "invalid" | "conflict";

/** A refused action, with a message meant for the person at the terminal. */
export class AdminError extends Error {
  constructor(readonly reason: AdminRefusal, message: string) {
    super(message);
    this.name = "AdminError";
  }
}

/** What a password reset did. */
export interface PasswordReset {
  user: string;
  /** The generated password, when none was given: shown once, stored hashed. */
  generatedPassword?: string;
  /** The user is disabled: the new password works once it is enabled again. */
  disabled: boolean;
  /** The user has TOTP on: a login still needs a code. */
  totp: boolean;
  /**
   * Only when the reset was asked to remove TOTP: whether it was on (a
   * setup never confirmed is removed too, and counts as off).
   */
  totpRemoved?: boolean;
}

/** What a reset does beyond the password. */
export interface ResetOptions {
  /** Also remove the user's TOTP, in the same write. */
  removeTotp?: boolean | undefined;
}

/** A token to make: for exactly one of `user` and `serviceAccount`. */
export interface AdminTokenRequest {
  user?: string | undefined;
  serviceAccount?: string | undefined;
  /** What the token is for; shown in token listings (its description). */
  name: string;
  /** Narrower than the owner's rights; none: the owner's full rights. */
  scopes?: TokenScope[] | undefined;
  /** Lifetime; none: auth.tokens.maxLifetime, or no expiry when that is 0. */
  expiresInSeconds?: number | undefined;
}

/** A token just made; `token` is its text, shown this once. */
export interface AdminToken {
  id: string;
  owner: TokenOwner;
  name: string;
  scopes: TokenScope[];
  expiresAt?: string;
  token: string;
}

/** A user as `kudurru admin list-users` shows it. */

/** The clock and the token policy the actions follow. */
export interface AdminOptions {
  /** @default Date.now */
  now?: () => number;
  /** auth.tokens.maxLifetime in ms; 0 or absent: no limit. */
  maxTokenLifetimeMs?: number;
}

/** The three actions bound to one Store: what the control socket serves. */
export interface AdminActions {
  resetPassword(
    user: string,
    password?: string,
    reset?: ResetOptions,
  ): Promise<PasswordReset>;
  createToken(request: AdminTokenRequest): Promise<AdminToken>;
  listUsers(): Promise<UserSummary[]>;
}

/** The actions on `store`, for startControlSocket. */
export function storeAdminActions(
  store: Store,
  opts: AdminOptions = {},
): AdminActions {
  return {
    resetPassword: (user, password, reset) =>
      resetPassword(store, user, password, { ...opts, ...reset }),
    createToken: (request) => createAdminToken(store, request, opts),
    listUsers: () => listUsers(store),
  };
}

/**
 * Sets a new password for `userName`: `password` when given (it must pass
 * the API's password policy), else a generated one, returned to be shown
 * once. Either way the user must change it at the next login, and every
 * session issued before now ends (setPassword moves sessionsValidAfter).
 * With `removeTotp`, the same write (one audit row) removes the user's TOTP:
 * the next login needs no code, and the user may enrol again.
 *
 * @throws {AdminError} for an unknown user or a password the policy refuses
 */
export async function resetPassword(
  store: Store,
  userName: string,
  password?: string,
  opts: AdminOptions & ResetOptions = {},
): Promise<PasswordReset> {
  const user = await mustFindUser(store, userName);
  if (password !== undefined) {
    const problem = passwordProblem(password, userName);
    if (problem !== undefined) throw new AdminError("invalid", problem);
  }
  const chosen = password ?? generatePassword();
  const saved = await setPassword(store, user, chosen, {
    actor: LOCAL_ADMIN_ACTOR,
    resetByAdmin: true,
    now: (opts.now ?? Date.now)(),
    removeTotp: opts.removeTotp,
  });
  return {
    user: userName,
    ...(password === undefined && { generatedPassword: chosen }),
    disabled: saved.spec!.disabled,
    totp: saved.spec!.totp?.enabled ?? false,
    ...(opts.removeTotp &&
      { totpRemoved: user.spec!.totp?.enabled ?? false }),
  };
}

/**
 * Makes an API token for a user or a service account; its text is in the
 * answer only. The owner must exist and be enabled (a token of a disabled
 * owner would be refused at every use).
 *
 * @throws {AdminError} for an unknown or disabled owner, bad scopes, a bad
 *   name or a lifetime beyond auth.tokens.maxLifetime
 */
export async function createAdminToken(
  store: Store,
  request: AdminTokenRequest,
  opts: AdminOptions = {},
): Promise<AdminToken> {
  const name = request.name.trim();
  if (name === "") {
    throw new AdminError(
      "invalid",
      'A token needs a name that says what it is for (such as "ci deploy")',
    );
  }
  if (name.length > MAX_TOKEN_NAME) {
    throw new AdminError(
      "invalid",
      `A token name may be at most ${MAX_TOKEN_NAME} characters`,
    );
  }
  const scopes = request.scopes ?? [];
  checkScopes(scopes);
  const owner = await enabledOwner(store, request);
  const now = (opts.now ?? Date.now)();
  const expiresAt = tokenExpiry(
    request.expiresInSeconds,
    opts.maxTokenLifetimeMs ?? 0,
    now,
  );
  const made = await createToken(store, {
    owner,
    description: name,
    scopes,
    expiresAt,
  }, LOCAL_ADMIN_ACTOR);
  return {
    id: made.token.metadata.name,
    owner,
    name,
    scopes,
    ...(expiresAt !== undefined && { expiresAt }),
    token: made.text,
  };
}

/** Every user, by name, without hashes or secrets. */
export async function listUsers(store: Store): Promise<UserSummary[]> {
  const users: UserSummary[] = [];
  let next: string | undefined;
  do {
    const page = await store.list("User", {
      limit: 500,
      ...(next !== undefined && { continue: next }),
    });
    users.push(...page.items.map((u) => userSummary(u as User)));
    next = page.continue;
  } while (next !== undefined);
  return users;
}

async function mustFindUser(store: Store, name: string): Promise<User> {
  const user = await findUser(store, name);
  if (user === undefined) {
    throw new AdminError(
      "not_found",
      `No user "${name}" (\`kudurru admin list-users\` lists them)`,
    );
  }
  return user;
}

/** The owner the request names, once it is known to exist and be enabled. */
async function enabledOwner(
  store: Store,
  request: AdminTokenRequest,
): Promise<TokenOwner> {
  const { user, serviceAccount } = request;
  if ((user === undefined) === (serviceAccount === undefined)) {
    throw new AdminError(
      "invalid",
      "A token belongs to a user or to a service account: name exactly one",
    );
  }
  if (user !== undefined) {
    const found = await mustFindUser(store, user);
    if (found.spec!.disabled) {
      throw new AdminError(
        "conflict",
        `User "${user}" is disabled: a token of it would be refused at every use`,
      );
    }
    return { kind: "User", name: user };
  }
  let account;
  try {
    account = await store.get({
      kind: "ServiceAccount",
      namespace: "",
      name: serviceAccount!,
    });
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    throw new AdminError(
      "not_found",
      `No service account "${serviceAccount}" (create it through the HTTP API: POST /api/v1/serviceaccounts)`,
    );
  }
  if ((account.spec as { disabled?: boolean }).disabled) {
    throw new AdminError(
      "conflict",
      `Service account "${serviceAccount}" is disabled: a token of it would be refused at every use`,
    );
  }
  return { kind: "ServiceAccount", name: serviceAccount! };
}

function checkScopes(scopes: readonly TokenScope[]): void {
  if (scopes.length > MAX_TOKEN_SCOPES) {
    throw new AdminError(
      "invalid",
      `A token may carry at most ${MAX_TOKEN_SCOPES} scopes`,
    );
  }
  const issues = validateTokenScopes(scopes);
  if (issues.length > 0) {
    throw new AdminError(
      "invalid",
      `${issues[0]!.path}: ${issues[0]!.message}`,
    );
  }
}

/**
 * When the token expires: the HTTP API's rule. No lifetime given: the
 * longest allowed, or none without a limit; a given one must be a positive
 * whole number of seconds within the limit (and ten years).
 */
function tokenExpiry(
  seconds: number | undefined,
  maxMs: number,
  now: number,
): string | undefined {
  if (seconds === undefined) {
    return maxMs > 0 ? new Date(now + maxMs).toISOString() : undefined;
  }
  if (!Number.isInteger(seconds) || seconds <= 0) {
    throw new AdminError(
      "invalid",
      "A token's lifetime must be a positive whole number of seconds",
    );
  }
  if (seconds * 1000 > MAX_DURATION_MS) {
    // Longer is a typo, and far enough out no Date can hold it.
    throw new AdminError(
      "invalid",
      `A token may live at most ${MAX_DURATION_MS / 86_400_000} days`,
    );
  }
  if (maxMs > 0 && seconds * 1000 > maxMs) {
    throw new AdminError(
      "invalid",
      `A token may live at most ${maxMs / 1000} s (auth.tokens.maxLifetime)`,
    );
  }
  return new Date(now + seconds * 1000).toISOString();
}
