/**
 * Errors the API answers with: `{error: {key, message, hint}}` under a
 * status, with a stable `key` clients may branch on (documented in the
 * OpenAPI document, `ERROR_KEYS`), a message saying what went wrong and,
 * where it helps, a hint saying what to do.
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  ConflictError,
  InvalidObjectError,
  ManagedByError,
  NotFoundError,
} from "../store/store.ts";
import type { FieldIssue } from "../api/v1alpha1/validate.ts";
import { InvalidContinueError } from "../store/pagination.ts";

/** Every error key the API sends, with its status and meaning. */
export const ERROR_KEYS = {
  bad_request: { status: 400, means: "the request is malformed" },
  invalid_json: { status: 400, means: "the body is not JSON" },
  unauthorized: {
    status: 401,
    means: "no valid session or token (or wrong credentials)",
  },
  password_change_required: {
    status: 403,
    means: "the password must be changed before anything else",
  },
  forbidden: {
    status: 403,
    means: "the caller's roles do not allow it; `missing` says what is needed",
  },
  csrf: {
    status: 403,
    means:
      "a cookie-authenticated write without the X-Kudurru-CSRF header or from another origin",
  },
  login_refused: {
    status: 403,
    means:
      "a login through an identity provider was refused; `reason` says why",
  },
  not_found: { status: 404, means: "no such object or route" },
  method_not_allowed: { status: 405, means: "the route has no such method" },
  conflict: {
    status: 409,
    means: "the object changed since it was read (If-Match), or already exists",
  },
  managed_by: {
    status: 409,
    means: "another manager owns the object; `owner` names it",
  },
  read_only: {
    status: 409,
    means: "objects are read-only on this node (a static configuration)",
  },
  body_too_large: { status: 413, means: "the body exceeds the size limit" },
  unsupported_media_type: {
    status: 415,
    means: "the body must be application/json (or merge-patch+json)",
  },
  invalid: {
    status: 422,
    means: "the body fails validation; `issues` name the fields",
  },
  unknown_field: {
    status: 422,
    means: "the body has a field the schema does not know; `issues` name it",
  },
  precondition_required: {
    status: 428,
    means: "the request needs an If-Match header",
  },
  rate_limited: {
    status: 429,
    means: "too many attempts; Retry-After says when to try again",
  },
  internal: { status: 500, means: "a bug: the server log has the details" },
  idp_unavailable: {
    status: 502,
    means:
      "the identity provider cannot be reached; Retry-After says when to try again",
  },
  unavailable: {
    status: 503,
    means:
      "the server cannot do it now (a full disk, a locked database, no DNS listener running); nothing was changed",
  },
} as const satisfies Record<string, { status: number; means: string }>;

export type ErrorKey = keyof typeof ERROR_KEYS;

/** An answer the API gives as an error. */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  /** Extra fields of the error body (issues, missing, owner, …). */
  readonly details: Record<string, unknown>;
  /** Headers to send with it (Retry-After, …). */
  readonly headers: Record<string, string>;

  constructor(
    readonly key: ErrorKey,
    message: string,
    opts: {
      hint?: string | undefined;
      details?: Record<string, unknown>;
      headers?: Record<string, string>;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = "ApiError";
    this.status = ERROR_KEYS[key].status as ContentfulStatusCode;
    this.details = {
      ...(opts.hint !== undefined && { hint: opts.hint }),
      ...opts.details,
    };
    this.headers = opts.headers ?? {};
  }

  /** The `error` member of the body. */
  body(): Record<string, unknown> {
    return { key: this.key, message: this.message, ...this.details };
  }
}

/** The Store's errors as API errors; anything else is returned as it came. */
export function fromStoreError(error: unknown): unknown {
  if (error instanceof InvalidContinueError) {
    return new ApiError("bad_request", error.message, {
      hint: "pass the continue value of the previous page as it came",
      cause: error,
    });
  }
  if (error instanceof NotFoundError) {
    return new ApiError("not_found", error.message, { cause: error });
  }
  if (error instanceof ManagedByError) {
    return new ApiError(
      "managed_by",
      `${error.key.kind} "${qualified(error.key)}" is managed by ${
        describeManager(error.owner)
      }`,
      {
        hint: error.owner.startsWith("file:")
          ? `edit ${error.owner.slice(5)} instead, or delete it there first`
          : "change it where it is managed",
        details: { owner: error.owner },
        cause: error,
      },
    );
  }
  if (error instanceof ConflictError) {
    return new ApiError("conflict", error.message, {
      hint: "read the object again and retry with its resourceVersion",
      details: { resourceVersion: error.actual },
      cause: error,
    });
  }
  if (error instanceof InvalidObjectError) return invalidBody(error.issues);
  if (isStorageUnavailable(error)) {
    return new ApiError(
      "unavailable",
      `Cannot store the change: ${(error as Error).message}`,
      {
        hint:
          "nothing was changed; free disk space or wait for the lock, then retry",
        headers: { "Retry-After": "5" },
        cause: error,
      },
    );
  }
  return error;
}

/** 422 for validation issues: `unknown_field` when any is an unknown key. */
export function invalidBody(issues: readonly FieldIssue[]): ApiError {
  const unknown = issues.filter((i) => /^unknown field/i.test(i.message));
  const key = unknown.length > 0 ? "unknown_field" : "invalid";
  const first = (unknown[0] ?? issues[0])!;
  const where = first?.path ? `${first.path}: ` : "";
  return new ApiError(key, `${where}${first?.message ?? "invalid"}`, {
    details: { issues },
  });
}

/** "file objects.d/zones.yaml", "the API", … for a managedBy value. */
export function describeManager(owner: string): string {
  if (owner.startsWith("file:")) return `file ${owner.slice(5)}`;
  if (owner === "api") return "the API";
  if (owner.startsWith("integration:")) {
    return `integration ${owner.slice(12)}`;
  }
  return owner;
}

function qualified(key: { namespace?: string; name: string }): string {
  return key.namespace ? `${key.namespace}/${key.name}` : key.name;
}

/** SQLite's full disk and busy database, as node:sqlite words them. */
function isStorageUnavailable(error: unknown): boolean {
  return error instanceof Error &&
    /database or disk is full|database is locked|disk I\/O error|SQLITE_FULL|SQLITE_BUSY/i
      .test(error.message);
}
