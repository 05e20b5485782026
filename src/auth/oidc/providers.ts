/**
 * The OpenID Connect providers of `auth.identityProviders`, each discovered
 * lazily: kudurru starts (and serves local logins) while a provider is down,
 * and the first login through it fetches its discovery document and keys.
 * A discovery that worked is kept; one that failed is retried no sooner than
 * a backoff that doubles up to five minutes, so a dead provider is not
 * hammered by every click on its login button, and the error says so.
 */
import * as client from "openid-client";
import { ROLES } from "../../rbac/permissions.ts";
import type { ClaimRule } from "./claim_rules.ts";

/** One provider as the configuration gives it (auth.identityProviders[]). */
export interface ProviderConfig {
  id: string;
  displayName: string;
  issuer: string;
  clientID: string;
  clientSecretFile: string;
  clientSecret: string;
  /** The public client of `kudurru login`; "" for none. */
  cliClientID: string;
  scopes: string[];
  claimMappings: {
    username: { claim: string; prefix: string };
    groups: { claim: string; prefix: string };
  };
  /** Claims a token must carry before it names anyone (claim_rules.ts). */
  claimValidationRules: ClaimRule[];
  provisioning: {
    autoProvision: "always" | "mapped-only" | "never";
    syncGroups: boolean;
    defaultRole: string;
  };
}

/** The provider cannot be reached or answered nonsense: a 502 `idp_unavailable`. */
export class IdpUnavailableError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    readonly retryAfterSeconds: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

const FIRST_BACKOFF_MS = 2_000;
const MAX_BACKOFF_MS = 5 * 60_000;
const DISCOVERY_TIMEOUT_S = 10;

/** A provider with its (lazily discovered) openid-client configuration. */
export class Provider {
  #config: client.Configuration | undefined;
  #discovering: Promise<client.Configuration> | undefined;
  #failedAt = -Infinity;
  #backoffMs = 0;
  #lastError = "";

  constructor(
    readonly settings: ProviderConfig,
    private readonly secret: string,
    private readonly now: () => number,
    private readonly clockSkewSeconds = 0,
  ) {}

  get id(): string {
    return this.settings.id;
  }

  get displayName(): string {
    return this.settings.displayName || this.settings.id;
  }

  /**
   * The client a bearer ID token must be issued to: the CLI's public
   * client, or the web login's client when there is no CLI client.
   */
  get cliClientID(): string {
    return this.settings.cliClientID || this.settings.clientID;
  }

  /**
   * The discovered configuration.
   *
   * @throws {IdpUnavailableError} when discovery fails, or failed within the backoff
   */
  async configuration(): Promise<client.Configuration> {
    if (this.#config) return this.#config;
    const wait = this.#failedAt + this.#backoffMs - this.now();
    if (wait > 0) {
      throw new IdpUnavailableError(
        this.id,
        `The identity provider "${this.id}" could not be reached (${this.#lastError}); kudurru tries again in ${
          Math.ceil(wait / 1000)
        } s`,
        Math.ceil(wait / 1000),
      );
    }
    this.#discovering ??= this.#discover().finally(() =>
      this.#discovering = undefined
    );
    return await this.#discovering;
  }

  async #discover(): Promise<client.Configuration> {
    const issuer = new URL(this.settings.issuer);
    try {
      const config = await client.discovery(
        issuer,
        this.settings.clientID,
        // Seconds added to our clock for the ID token time checks.
        this.clockSkewSeconds === 0
          ? undefined
          : { [client.clockSkew]: this.clockSkewSeconds },
        client.ClientSecretBasic(this.secret),
        {
          timeout: DISCOVERY_TIMEOUT_S,
          // Plain HTTP only to a provider on this host (a test, a sidecar).
          ...(isLoopback(issuer) && {
            execute: [client.allowInsecureRequests],
          }),
        },
      );
      this.#config = config;
      this.#backoffMs = 0;
      return config;
    } catch (error) {
      this.#failedAt = this.now();
      this.#backoffMs = Math.min(
        Math.max(this.#backoffMs * 2, FIRST_BACKOFF_MS),
        MAX_BACKOFF_MS,
      );
      // The message of a network or discovery error names no secret.
      this.#lastError = error instanceof Error ? error.message : String(error);
      throw new IdpUnavailableError(
        this.id,
        `The identity provider "${this.id}" could not be reached (${this.#lastError})`,
        Math.ceil(this.#backoffMs / 1000),
        { cause: error },
      );
    }
  }
}

/** Whether `url` names this host (the only place plain HTTP is allowed). */
export function isLoopback(url: URL): boolean {
  const host = url.hostname;
  return host === "localhost" || host === "[::1]" ||
    /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Every configured provider, by id. */
export class ProviderRegistry {
  readonly #byId = new Map<string, Provider>();

  private constructor(providers: Provider[]) {
    for (const p of providers) this.#byId.set(p.id, p);
  }

  /**
   * The registry of `configs`; reads each client secret file once.
   *
   * @throws {Error} for a configuration that would be unsafe or cannot work
   */
  static async create(
    configs: readonly ProviderConfig[],
    opts: {
      now: () => number;
      readFile?: (path: string) => Promise<string>;
      /** Seconds added to the clock of the ID token checks (tests: an expired token). */
      clockSkewSeconds?: number;
    },
  ): Promise<ProviderRegistry> {
    const readFile = opts.readFile ?? Deno.readTextFile;
    const seen = new Set<string>();
    const providers: Provider[] = [];
    for (const config of configs) {
      const where = `auth.identityProviders "${config.id}"`;
      if (seen.has(config.id)) {
        throw new Error(
          `${where} appears twice; give each provider its own id`,
        );
      }
      seen.add(config.id);
      if (config.provisioning.defaultRole === "admin") {
        // Everyone the provider knows would be an admin.
        throw new Error(
          `${where}: provisioning.defaultRole may not be admin; bind admins by group or user instead`,
        );
      }
      const { autoProvision, defaultRole } = config.provisioning;
      if (
        defaultRole !== "" &&
        !(ROLES as readonly string[]).includes(defaultRole)
      ) {
        throw new Error(
          `${where}: provisioning.defaultRole "${defaultRole}" is no role (${
            ROLES.join(", ")
          })`,
        );
      }
      if (autoProvision === "always" && defaultRole === "") {
        // Without a role there is nothing to give a user no binding names.
        throw new Error(
          `${where}: provisioning.autoProvision always needs a defaultRole (such as viewer)`,
        );
      }
      if (!config.scopes.includes("openid")) {
        throw new Error(`${where}: scopes must include "openid"`);
      }
      const issuer = new URL(config.issuer);
      if (issuer.protocol !== "https:" && !isLoopback(issuer)) {
        throw new Error(
          `${where}: the issuer must be an https:// URL (plain http only on this host)`,
        );
      }
      const secret = config.clientSecretFile !== ""
        ? (await readFile(config.clientSecretFile)).trim()
        : config.clientSecret;
      if (secret === "") {
        throw new Error(
          `${where} has no client secret: set clientSecretFile (or clientSecret)`,
        );
      }
      providers.push(
        new Provider(config, secret, opts.now, opts.clockSkewSeconds ?? 0),
      );
    }
    return new ProviderRegistry(providers);
  }

  /** The provider `id`, or undefined. */
  get(id: string): Provider | undefined {
    return this.#byId.get(id);
  }

  /** Every provider, in the configuration's order. */
  list(): Provider[] {
    return [...this.#byId.values()];
  }
}
