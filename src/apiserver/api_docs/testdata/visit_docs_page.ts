/**
 * Opens the docs page at `Deno.args[0]` in headless Chromium and prints, as
 * JSON, what a test checks: the requests the page made, its CSP reports,
 * its uncaught errors, and whether the API's title and an operation showed.
 *
 * A child process of docs_route_test.ts: Playwright reads the home folder,
 * OS facts and /proc/sys, which the test run's permissions do not grant.
 */
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "../../../testing/chromium.ts";

/** What the page did. */
export interface Visit {
  requests: string[];
  /** Console lines about the CSP, and `csp-violation <directive> <uri>`. */
  csp: string[];
  errors: string[];
  /** Whether the API's title and the login operation rendered. */
  rendered: boolean;
  /** Why the visit stopped early, if it did. */
  failure?: string;
}

/** Reports violations on the console, where the console handler sees them. */
const REPORT_VIOLATIONS =
  `document.addEventListener("securitypolicyviolation", (e) =>
  console.warn("csp-violation " + e.violatedDirective + " " + e.blockedURI));`;

async function visit(url: string): Promise<Visit> {
  const result: Visit = { requests: [], csp: [], errors: [], rendered: false };
  try {
    await Deno.stat(CHROMIUM);
  } catch {
    result.failure = `no ${CHROMIUM}: apt-get install chromium`;
    return result;
  }
  const profile = await Deno.makeTempDir({ prefix: "kudurru-chromium-" });
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
  });
  try {
    const page = browser.pages()[0] ?? await browser.newPage();
    page.on("request", (r) => result.requests.push(r.url()));
    page.on("console", (m) => {
      const text = m.text();
      if (/Content Security Policy|^csp-violation /.test(text)) {
        result.csp.push(text);
      }
    });
    page.on("pageerror", (e) => result.errors.push(e.message));
    await page.addInitScript(REPORT_VIOLATIONS);
    await page.goto(url);
    await page.getByRole("heading", { name: "kudurru API" })
      .waitFor({ timeout: 30_000 });
    await page.getByText("Log in with a user name and password").first()
      .click();
    await page.getByText("/api/v1/auth/login").first().waitFor();
    // A moment for anything the page sends late; Chromium's "network idle"
    // sometimes never comes after the click, with no request open.
    await page.waitForTimeout(1_000);
    result.rendered = true;
  } catch (error) {
    result.failure = String(error);
  } finally {
    await browser.close();
    await Deno.remove(profile, { recursive: true });
  }
  return result;
}

if (import.meta.main) {
  const result = await visit(Deno.args[0]!);
  await Deno.stdout.write(new TextEncoder().encode(JSON.stringify(result)));
}
