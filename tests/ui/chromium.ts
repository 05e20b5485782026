/**
 * Debian's Chromium under Playwright, for the UI scenarios (scenarios/).
 * They run as child processes of ui_test.ts: Playwright reads the home
 * folder, OS facts and /proc, which the test run's permissions do not grant.
 */
import { type BrowserContext, chromium, type Page } from "playwright-core";
import axe from "axe-core";
import { CHROMIUM, CHROMIUM_ARGS } from "../../src/testing/chromium.ts";

export interface Browser extends AsyncDisposable {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors and CSP violations the pages reported. */
  problems: string[];
}

/** A fresh profile and one page; disposing closes both. */
export async function openBrowser(
  viewport = { width: 1280, height: 900 },
): Promise<Browser> {
  const profile = await Deno.makeTempDir({ prefix: "kudurru-chromium-" });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    viewport,
  });
  const page = context.pages()[0] ?? await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (/Content Security Policy/.test(m.text())) {
      problems.push(`CSP: ${m.text()}`);
    }
  });
  return {
    context,
    page,
    problems,
    async [Symbol.asyncDispose]() {
      await context.close();
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  };
}

/** What ui_test.ts passes a scenario, from the environment. */
export function scenarioEnv() {
  const get = (name: string) => {
    const value = Deno.env.get(name);
    if (value === undefined) throw new Error(`${name} is not set`);
    return value;
  };
  return {
    url: get("KUDURRU_URL"),
    dnsPort: Number(get("KUDURRU_DNS_PORT")),
    password: get("KUDURRU_PASSWORD"),
    screenshots: Deno.env.get("KUDURRU_SCREENSHOTS"),
  };
}

/** Logs in through the login form. */
export async function logIn(page: Page, url: string, password: string) {
  await page.goto(url);
  await page.getByLabel("User name").fill("admin");
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
}

/** Asks kudurru a question with dig; throws unless it answered NOERROR. */
export async function dig(port: number, name: string, type = "A") {
  const out = await new Deno.Command("dig", {
    args: ["@127.0.0.1", "-p", String(port), name, type, "+tries=1", "+time=2"],
    stdout: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const status = /status: (\w+)/.exec(text)?.[1];
  return { status, text };
}

/** The page is no wider than the window: nothing scrolls sideways. */
export async function horizontalOverflow(page: Page): Promise<number> {
  // Runs in the page; this file is type-checked without the DOM's types.
  return await page.evaluate(() => {
    const root = (globalThis as unknown as {
      document: {
        documentElement: { scrollWidth: number; clientWidth: number };
      };
    }).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

/** Prints a line for ui_test.ts ("ok" at the end of a scenario). */
export async function say(line: string): Promise<void> {
  await Deno.stdout.write(new TextEncoder().encode(`${line}\n`));
}

/**
 * The serious and critical accessibility violations axe-core finds on the
 * page as it is now, one line each ("rule: help (target, …)").
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  // Runs in the page, where axe is loaded; typed loosely on this side.
  const violations = await page.evaluate(async () => {
    const inPage = (globalThis as unknown as {
      axe: {
        run: () => Promise<{
          violations: {
            id: string;
            impact: string | null;
            help: string;
            nodes: { target: unknown[] }[];
          }[];
        }>;
      };
    }).axe;
    return (await inPage.run()).violations;
  });
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) =>
      `${v.id}: ${v.help} (${
        v.nodes.map((n) => n.target.join(" ")).join(", ")
      })`
    );
}
