/**
 * The error of a login through an identity provider that the server
 * refused: the callback sends the browser back with it in a short-lived
 * cookie (`kudurru_login_error`, `__Host-` over TLS), which the login page
 * reads once and removes.
 */

/** What the cookie holds. */
export interface LoginError {
  key: string;
  message: string;
  reason?: string;
}

const NAMES = ["__Host-kudurru_login_error", "kudurru_login_error"];

/** The error in `cookies` (document.cookie), if one is there and well-formed. */
export function loginErrorOf(cookies: string): LoginError | undefined {
  for (const pair of cookies.split(";")) {
    const eq = pair.indexOf("=");
    if (eq < 0 || !NAMES.includes(pair.slice(0, eq).trim())) continue;
    try {
      const value = JSON.parse(decodeURIComponent(pair.slice(eq + 1).trim()));
      if (
        typeof value?.key === "string" && typeof value.message === "string"
      ) {
        return {
          key: value.key,
          message: value.message,
          ...(typeof value.reason === "string" && { reason: value.reason }),
        };
      }
    } catch {
      // Not ours, or cut short: nothing to show.
    }
  }
  return undefined;
}

/** Reads the error from the page's cookies and removes the cookie: shown once. */
export function takeLoginError(): LoginError | undefined {
  const error = loginErrorOf(document.cookie);
  if (error !== undefined) {
    for (const name of NAMES) {
      const secure = name.startsWith("__Host-") ? "; Secure" : "";
      document.cookie = `${name}=; Max-Age=0; Path=/${secure}`;
    }
  }
  return error;
}
