/**
 * How tests start Debian's Chromium (package chromium, which .ci/run
 * installs) under playwright-core: never a downloaded browser, and flags
 * for a machine without a way out, so nothing calls Google.
 */

/** Debian's Chromium. */
export const CHROMIUM = "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
