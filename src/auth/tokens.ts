/**
 * API tokens in the Store (the internal APIToken kind, named by the token's
 * id): made with the secret shown once, checked by the hash of the secret,
 * expired, revoked by deleting them. Last use is written at most once a
 * minute per token, so a busy dashboard token costs no write per request.
 */
import { API_VERSION } from "../api/v1alpha1/meta.ts";
import type { APIToken, TokenScope } from "../api/v1alpha1/auth_kinds.ts";
import {
  NotFoundError,
  originOptions,
  type Store,
  type WriteOrigin,
} from "../store/store.ts";
import {
  newToken,
  parseToken,
  secretHash,
  secretMatches,
} from "./api_token.ts";
import { ACCOUNTS_MANAGER, findUser } from "./accounts.ts";

/** Who owns a token. */
export interface TokenOwner {
  kind: "User" | "ServiceAccount";
  name: string;
}

/** Last use is written at most this often per token. */
const LAST_USED_EVERY_MS = 60_000;

/** Makes a token; the text is returned once and never stored. */
export async function createToken(
  store: Store,
  input: {
    owner: TokenOwner;
    description: string;
    scopes: TokenScope[];
    expiresAt?: string | undefined;
  },
  origin: WriteOrigin,
): Promise<{ token: APIToken; text: string }> {
  const made = newToken();
  const token = await store.apply({
    apiVersion: API_VERSION,
    kind: "APIToken",
    metadata: { name: made.id },
    spec: {
      owner: input.owner,
      description: input.description,
      scopes: input.scopes,
      ...(input.expiresAt !== undefined && { expiresAt: input.expiresAt }),
      secretHash: made.secretHash,
    },
  }, { manager: ACCOUNTS_MANAGER, ...originOptions(origin) }) as APIToken;
  return { token, text: made.text };
}

/**
 * Stores a token whose text was given (KUDURRU_BOOTSTRAP_TOKEN), once: an
 * existing token of that id is left as it is.
 *
 * @throws {Error} when the text is not a kdr_ token
 */
export async function ensureGivenToken(
  store: Store,
  text: string,
  owner: TokenOwner,
  description: string,
): Promise<void> {
  const parsed = parseToken(text.trim());
  if (parsed === undefined) {
    throw new Error(
      "Cannot use KUDURRU_BOOTSTRAP_TOKEN: it is not a kdr_<id>_<secret> token (make one with `kudurru admin create-token --print-only`)",
    );
  }
  if (await findToken(store, parsed.id) !== undefined) return;
  await store.apply({
    apiVersion: API_VERSION,
    kind: "APIToken",
    metadata: { name: parsed.id },
    spec: {
      owner,
      description,
      scopes: [],
      secretHash: secretHash(parsed.secret),
    },
  }, { manager: ACCOUNTS_MANAGER, actor: "bootstrap" });
}

/** The token `id`, or undefined. */
export async function findToken(
  store: Store,
  id: string,
): Promise<APIToken | undefined> {
  try {
    return await store.get({
      kind: "APIToken",
      namespace: "",
      name: id,
    }) as APIToken;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/** A token that checked out, with its owner. */
export interface ValidToken {
  token: APIToken;
  owner: TokenOwner;
}

/** Checks bearer tokens; remembers when each was last written as used. */
export class TokenChecker {
  readonly #lastWritten = new Map<string, number>();

  constructor(private readonly store: Store) {}

  /**
   * The token `text` names when its secret matches, it has not expired and
   * its owner exists and is enabled; undefined otherwise (the same answer
   * for every failure).
   */
  async check(text: string, now: number): Promise<ValidToken | undefined> {
    const parsed = parseToken(text);
    if (parsed === undefined) return undefined;
    const token = await findToken(this.store, parsed.id);
    if (!secretMatches(parsed.secret, token?.spec?.secretHash)) {
      return undefined;
    }
    const spec = token!.spec!;
    if (spec.expiresAt !== undefined && Date.parse(spec.expiresAt) <= now) {
      return undefined;
    }
    if (!await this.#ownerEnabled(spec.owner)) return undefined;
    return { token: token!, owner: spec.owner };
  }

  /** Writes the token's last use, at most once a minute. */
  async used(token: APIToken, from: string, now: number): Promise<void> {
    const id = token.metadata.name;
    const last = this.#lastWritten.get(id);
    if (last !== undefined && now - last < LAST_USED_EVERY_MS) return;
    this.#lastWritten.set(id, now);
    if (this.#lastWritten.size > 10_000) {
      this.#lastWritten.delete(this.#lastWritten.keys().next().value!);
    }
    await this.store.updateStatus({
      ...token,
      status: {
        ...token.status,
        lastUsedAt: new Date(now).toISOString(),
        lastUsedFrom: from.slice(0, 64),
      },
    });
  }

  async #ownerEnabled(owner: TokenOwner): Promise<boolean> {
    if (owner.kind === "User") {
      const user = await findUser(this.store, owner.name);
      return user !== undefined && !user.spec!.disabled;
    }
    try {
      const account = await this.store.get({
        kind: "ServiceAccount",
        namespace: "",
        name: owner.name,
      });
      return !(account.spec as { disabled?: boolean }).disabled;
    } catch (error) {
      if (error instanceof NotFoundError) return false;
      throw error;
    }
  }
}
