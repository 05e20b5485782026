/**
 * Who is logged in, as auth/status says, and the calls that change it:
 * login (with the TOTP step), the first-run password change, logout.
 */
import { signal } from "@preact/signals";
import { get, request, setCsrf, whenUnauthorized } from "./api.ts";

/** GET /api/v1/auth/status. */
export interface AuthStatus {
  authenticated: boolean;
  user?: string;
  kind?: string;
  /** The identity provider the user logged in through. */
  provider?: string;
  mustChangePassword?: boolean;
  csrf?: string;
  /** The first admin still has the password it was created with. */
  hasDefaultCredentials: boolean;
  localLogin: string;
  /** What the caller may do at cluster scope: resource → verbs. */
  permissions?: Record<string, string[]>;
  /** What it may do besides in the zones its bindings name: zone → resource → verbs. */
  zonePermissions?: Record<string, Record<string, string[]>>;
}

/** undefined until the first status arrives. */
export const session = signal<AuthStatus | undefined>(undefined);

export async function loadStatus(): Promise<AuthStatus> {
  const status = await get<AuthStatus>("auth/status");
  setCsrf(status.csrf);
  session.value = status;
  return status;
}

whenUnauthorized(() => {
  const now = session.value;
  if (now?.authenticated) {
    setCsrf(undefined);
    session.value = { ...now, authenticated: false };
  }
});

/** POST auth/login; throws ApiError (details.totpRequired when a code is due). */
export async function login(
  username: string,
  password: string,
  totp?: string,
): Promise<void> {
  const answer = await request<{ csrf: string }>("POST", "auth/login", {
    body: { username, password, ...(totp ? { totp } : {}) },
  });
  setCsrf(answer.csrf);
  await loadStatus();
}

export async function changePassword(
  current: string,
  next: string,
): Promise<void> {
  const answer = await request<{ csrf: string }>("POST", "auth/password", {
    body: { current, new: next },
  });
  setCsrf(answer.csrf);
  await loadStatus();
}

export async function logout(): Promise<void> {
  try {
    await request("POST", "auth/logout");
  } finally {
    setCsrf(undefined);
    await loadStatus();
  }
}

/**
 * Whether the caller may use `verb` on `resource` across the cluster, or
 * in `zone` (a DNSZone's object name) when one is given.
 */
export function can(resource: string, verb: string, zone?: string): boolean {
  const status = session.value;
  if (status?.permissions?.[resource]?.includes(verb)) return true;
  return zone !== undefined &&
    (status?.zonePermissions?.[zone]?.[resource]?.includes(verb) ?? false);
}
