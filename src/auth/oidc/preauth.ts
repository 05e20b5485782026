/**
 * The pre-auth cookie: what the callback of an OpenID Connect login must
 * check (state, nonce, the PKCE verifier) and where to go after it, kept
 * by the browser between the redirect to the provider and its return.
 * It is sealed (encrypted and authenticated, sealed.ts) with the
 * `loginState` purpose key, so the browser can neither read the verifier
 * nor change a value; it carries its own 10-minute expiry because sealing
 * does not expire; and each state is accepted once (UsedStates), so a
 * copied cookie cannot finish a second login.
 */
import { open, seal, type SealingKeys } from "../sealed.ts";

/** The cookie's name (sent only to the callback: its Path is scoped). */
export const PREAUTH_COOKIE = "kudurru_oidc";

/** How long a login may take at the provider. */
export const PREAUTH_LIFETIME_MS = 10 * 60_000;

/** What the sealed cookie holds. */
export interface PreAuth {
  /** Provider id: a cookie from one provider's login is no good at another's. */
  p: string;
  /** state, nonce and the PKCE code verifier. */
  s: string;
  n: string;
  v: string;
  /** The redirect URI sent to the provider, sent again with the code. */
  r: string;
  /** Where to go after the login (a same-origin path). */
  next: string;
  /** Expiry, ms since the epoch. */
  exp: number;
}

/** The sealed cookie value for `value`. */
export function sealPreAuth(
  value: PreAuth,
  keys: SealingKeys,
): Promise<string> {
  return seal(value, keys);
}

/**
 * The pre-auth of `cookie` for `provider`, or undefined when it does not
 * open, belongs to another provider or has run out. Never throws.
 */
export async function openPreAuth(
  cookie: string | undefined,
  provider: string,
  keys: SealingKeys,
  now: number,
): Promise<PreAuth | undefined> {
  if (cookie === undefined) return undefined;
  const v = await open(cookie, keys) as Partial<PreAuth> | undefined;
  if (typeof v !== "object" || v === null) return undefined;
  for (const field of ["p", "s", "n", "v", "r", "next"] as const) {
    if (typeof v[field] !== "string") return undefined;
  }
  if (typeof v.exp !== "number" || v.exp <= now) return undefined;
  if (v.exp > now + PREAUTH_LIFETIME_MS + 60_000) return undefined;
  if (v.p !== provider) return undefined;
  return v as PreAuth;
}

/**
 * States already used, until their cookie would have expired anyway: the
 * cookie is cleared at the callback, but a browser (or an attacker who
 * copied it) could send it again. Bounded: past the limit the oldest go,
 * which only matters under a flood, and their codes are single-use at the
 * provider too.
 */
export class UsedStates {
  readonly #until = new Map<string, number>();

  constructor(private readonly limit = 10_000) {}

  /** Marks `state` used; false when it already was. */
  use(state: string, expires: number, now: number): boolean {
    for (const [s, until] of this.#until) {
      if (until > now) break; // insertion order is roughly expiry order
      this.#until.delete(s);
    }
    if (this.#until.has(state)) return false;
    this.#until.set(state, expires);
    if (this.#until.size > this.limit) {
      this.#until.delete(this.#until.keys().next().value!);
    }
    return true;
  }
}

/**
 * `next` when it is a path on this origin: one leading `/`, not `//` or
 * `/\` (which browsers read as another host), no scheme, no control
 * characters; otherwise undefined.
 */
export function safeNext(next: string | undefined): string | undefined {
  if (next === undefined || next === "") return "/";
  if (next.length > 2048) return undefined;
  if (!next.startsWith("/") || next.startsWith("//")) return undefined;
  if (next.includes("\\")) return undefined;
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(next)) return undefined;
  // Whatever a URL parser makes of it must stay on this origin.
  const base = "http://kudurru.invalid";
  const url = new URL(next, base);
  if (url.origin !== base) return undefined;
  return next;
}
