/**
 * Local users in the Store (the internal User kind): the first admin, the
 * password check of a login, password changes and TOTP. Every write goes
 * through the Store as manager "api", with the actor for its audit row.
 */
import { API_VERSION } from "../api/v1alpha1/meta.ts";
import type { User, UserSpec } from "../api/v1alpha1/auth_kinds.ts";
import type { Logger } from "../log/logger.ts";
import {
  NotFoundError,
  originOptions,
  type Store,
  type WriteOrigin,
} from "../store/store.ts";
import {
  generatePassword,
  hashPassword,
  needsRehash,
  verifyAgainstNothing,
  verifyPassword,
} from "./password.ts";
import { open, seal, type SealingKeys } from "./sealed.ts";
import { newTotpSecret, totpUri, verifyTotp } from "./totp.ts";

/** The manager of every account object. */
export const ACCOUNTS_MANAGER = "api";

/** The first admin's name. */
export const FIRST_ADMIN = "admin";

/** The User `name`, or undefined when there is none. */
export async function findUser(
  store: Store,
  name: string,
): Promise<User | undefined> {
  try {
    return await store.get({ kind: "User", namespace: "", name }) as User;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/** Writes `user` with `spec` changed as `change` says. */
export async function updateUser(
  store: Store,
  user: User,
  change: Partial<UserSpec>,
  origin: WriteOrigin,
): Promise<User> {
  const { status: _status, ...rest } = user;
  return await store.apply({
    ...rest,
    spec: { ...user.spec!, ...change },
  }, {
    manager: ACCOUNTS_MANAGER,
    ...originOptions(origin),
    expectedResourceVersion: user.metadata.resourceVersion!,
  }) as User;
}

/** Creates a user with `password` (hashed here). */
export async function createUser(
  store: Store,
  name: string,
  password: string | undefined,
  spec: Partial<UserSpec>,
  origin: WriteOrigin,
): Promise<User> {
  return await store.apply({
    apiVersion: API_VERSION,
    kind: "User",
    metadata: { name },
    spec: {
      ...spec,
      ...(password !== undefined &&
        { passwordHash: await hashPassword(password) }),
    },
  }, { manager: ACCOUNTS_MANAGER, ...originOptions(origin) }) as User;
}

/** What the first start did about the admin. */
export interface FirstAdmin {
  /** The password generated and to be shown once, when one was. */
  generatedPassword?: string;
}

/**
 * With no User at all, creates `admin` with the given password (from
 * KUDURRU_ADMIN_PASSWORD[_FILE] or auth.bootstrap), or a generated one the
 * caller prints once; a generated password must be changed at the first
 * login. Also binds `admin` to the admin role (a RoleBinding).
 */
export async function ensureFirstAdmin(
  store: Store,
  opts: { password: string | undefined; logger: Logger },
): Promise<FirstAdmin> {
  const users = await store.list("User", { limit: 1 });
  if (users.items.length > 0) return {};
  const given = opts.password !== undefined && opts.password !== "";
  const password = given ? opts.password! : generatePassword();
  await createUser(store, FIRST_ADMIN, password, {
    mustChangePassword: !given,
    displayName: "Administrator",
  }, "bootstrap");
  await store.apply({
    apiVersion: API_VERSION,
    kind: "RoleBinding",
    metadata: { name: "admin" },
    spec: {
      role: "admin",
      scope: { kind: "cluster" },
      subjects: [{ kind: "User", name: FIRST_ADMIN }],
    },
  }, { manager: ACCOUNTS_MANAGER, actor: "bootstrap" });
  opts.logger.info("Created the first admin", {
    user: FIRST_ADMIN,
    password: given ? "as given" : "generated",
  });
  return given ? {} : { generatedPassword: password };
}

/** Why a login failed, for the API's answer (the same 401 for the first two). */
export type LoginFailure = "credentials" | "totp_required" | "totp";

/**
 * The user whose name and password these are, or why not. An unknown user
 * costs the same hashing as a wrong password, so timing tells nothing; a
 * disabled user is refused like a wrong password. A user with TOTP needs a
 * code, used once.
 */
export async function checkLogin(
  store: Store,
  input: { username: string; password: string; totp?: string | undefined },
  totpKeys: SealingKeys,
  now: number,
): Promise<{ user: User } | { failure: LoginFailure }> {
  const user = await findUser(store, input.username);
  const hash = user?.spec?.passwordHash;
  const ok = hash === undefined
    ? await verifyAgainstNothing(input.password)
    : await verifyPassword(input.password, hash);
  if (!ok || user === undefined || user.spec!.disabled) {
    return { failure: "credentials" };
  }
  let current = user;
  const totp = user.spec!.totp;
  if (totp?.enabled) {
    if (input.totp === undefined || input.totp === "") {
      return { failure: "totp_required" };
    }
    const secret = await open(totp.sealedSecret, totpKeys);
    const step = typeof secret === "string"
      ? verifyTotp(input.totp, secret, totp.lastStep, now)
      : undefined;
    if (step === undefined) return { failure: "totp" };
    current = await updateUser(store, current, {
      totp: { ...totp, lastStep: step },
    }, user.metadata.name);
  }
  if (hash !== undefined && needsRehash(hash)) {
    current = await updateUser(store, current, {
      passwordHash: await hashPassword(input.password),
    }, user.metadata.name);
  }
  return { user: current };
}

/**
 * Sets a new password; every session issued before now ends (the one
 * asking gets a new cookie). An admin's reset makes the user change it
 * again at the next login. With `removeTotp`, the same write also removes
 * the user's TOTP (see removeTotp).
 */
export async function setPassword(
  store: Store,
  user: User,
  password: string,
  opts: {
    actor: WriteOrigin;
    resetByAdmin: boolean;
    now: number;
    removeTotp?: boolean | undefined;
  },
): Promise<User> {
  return await updateUser(store, opts.removeTotp ? withoutTotp(user) : user, {
    passwordHash: await hashPassword(password),
    mustChangePassword: opts.resetByAdmin,
    sessionsValidAfter: new Date(opts.now).toISOString(),
  }, opts.actor);
}

/**
 * Removes the user's TOTP, confirmed or still being set up: the next login
 * needs no code, and the user may enrol again. Sessions go on.
 */
export async function removeTotp(
  store: Store,
  user: User,
  origin: WriteOrigin,
): Promise<User> {
  return await updateUser(store, withoutTotp(user), {}, origin);
}

/** `user` with no TOTP in its spec (updateUser writes the spec it is given). */
function withoutTotp(user: User): User {
  const { totp: _totp, ...spec } = user.spec!;
  return { ...user, spec };
}

/** Starts TOTP enrolment: a new secret, sealed at rest, on until a code confirms it. */
export async function startTotp(
  store: Store,
  user: User,
  totpKeys: SealingKeys,
): Promise<{ secret: string; uri: string }> {
  const secret = newTotpSecret();
  await updateUser(store, user, {
    totp: {
      sealedSecret: await seal(secret, totpKeys),
      enabled: false,
      lastStep: 0,
    },
  }, user.metadata.name);
  return { secret, uri: totpUri(secret, user.metadata.name) };
}

/** Confirms enrolment with a first code; false when the code is wrong. */
export async function confirmTotp(
  store: Store,
  user: User,
  code: string,
  totpKeys: SealingKeys,
  now: number,
): Promise<boolean> {
  const totp = user.spec!.totp;
  if (totp === undefined) return false;
  const secret = await open(totp.sealedSecret, totpKeys);
  if (typeof secret !== "string") return false;
  const step = verifyTotp(code, secret, totp.lastStep, now);
  if (step === undefined) return false;
  await updateUser(store, user, {
    totp: { ...totp, enabled: true, lastStep: step },
  }, user.metadata.name);
  return true;
}

/** Whether the first admin still has the generated password. */
export async function hasDefaultCredentials(store: Store): Promise<boolean> {
  const admin = await findUser(store, FIRST_ADMIN);
  return admin?.spec?.mustChangePassword === true;
}

/** What may be shown of a user: never its password hash or TOTP secret. */
export interface UserSummary {
  name: string;
  displayName: string;
  disabled: boolean;
  mustChangePassword: boolean;
  /** Has a local password (users of an identity provider have none). */
  localPassword: boolean;
  /** TOTP is confirmed: logins need a code. */
  totp: boolean;
  createdAt?: string;
}

/** The summary of `user` (the API's and `kudurru admin list-users`' view). */
export function userSummary(user: User): UserSummary {
  const spec = user.spec!;
  const createdAt = user.metadata.creationTimestamp;
  return {
    name: user.metadata.name,
    displayName: spec.displayName ?? "",
    disabled: spec.disabled,
    mustChangePassword: spec.mustChangePassword,
    localPassword: spec.passwordHash !== undefined,
    totp: spec.totp?.enabled ?? false,
    ...(createdAt !== undefined && { createdAt }),
  };
}
