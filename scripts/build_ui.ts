/**
 * Builds the web UI (ui/, docs/ui.md) into ui/dist: the app bundled and
 * minified by esbuild into content-hashed files under assets/, index.html
 * naming them, the licences of the bundled packages, and assets.ts, which
 * imports every file so the program embeds them (`deno compile` too) and
 * serves them with no build step at run time (src/apiserver/ui/ui_routes.ts).
 * ui/dist is committed; tests/ui/bundle_test.ts fails when it differs from
 * what this script builds now.
 *
 *   deno task ui:build
 *
 * esbuild does not read Deno's npm specifiers: the packages the app imports
 * (as `deno info` resolves them from deno.json's pins) are linked into a
 * temporary node_modules that esbuild searches.
 */
import * as esbuild from "esbuild";
import { dirname, join, relative } from "node:path";

const ROOT = join(import.meta.dirname!, "..");
export const UI_DIR = join(ROOT, "ui");
export const DIST_DIR = join(UI_DIR, "dist");
const ENTRY = join(UI_DIR, "src", "main.tsx");

/** Where the browser finds the assets, relative to index.html's <base>. */
const ASSETS = "assets";

/** The npm packages the UI's code imports (deno.json pins each once). */
const UI_PACKAGES = ["preact", "@preact/signals", "uplot"];

/** One npm package as `deno info --json` reports it. */
interface NpmPackage {
  name: string;
  version: string;
  localPath: string;
  /** Ids (`name@version…`) of the packages it depends on. */
  dependencies: string[];
}

/**
 * UI_PACKAGES and what they depend on, as Deno resolves them. `deno info`
 * lists every package of the workspace's lockfile, so the UI's are
 * followed from their roots.
 */
async function npmPackages(): Promise<NpmPackage[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", ENTRY],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `deno info ${relative(ROOT, ENTRY)} failed: ${
        new TextDecoder().decode(out.stderr)
      }`,
    );
  }
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    npmPackages?: Record<string, NpmPackage>;
  };
  const all = info.npmPackages ?? {};
  const wanted = Object.keys(all).filter((id) =>
    UI_PACKAGES.includes(all[id]!.name)
  );
  const found = new Map<string, NpmPackage>();
  while (wanted.length > 0) {
    const id = wanted.pop()!;
    const p = all[id];
    if (p === undefined || found.has(id)) continue;
    found.set(id, p);
    wanted.push(...p.dependencies);
  }
  const versions = new Map<string, string>();
  for (const p of found.values()) {
    const other = versions.get(p.name);
    if (other !== undefined && other !== p.version) {
      // Two copies of preact break rendering (hooks keep their own state).
      throw new Error(`two versions of ${p.name}: ${other} and ${p.version}`);
    }
    versions.set(p.name, p.version);
  }
  const missing = UI_PACKAGES.filter((name) => !versions.has(name));
  if (missing.length > 0) {
    throw new Error(`deno info names no ${missing.join(", ")}: deno install?`);
  }
  return [...found.values()];
}

/** A node_modules of links to `packages`, for esbuild to search. */
async function linkedNodeModules(packages: NpmPackage[]): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-ui-build-" });
  const modules = join(dir, "node_modules");
  for (const p of packages) {
    const link = join(modules, p.name);
    await Deno.mkdir(dirname(link), { recursive: true });
    await Deno.symlink(p.localPath, link, { type: "dir" });
  }
  return dir;
}

/** The licence texts of the packages whose files went into the bundle. */
async function licences(
  packages: NpmPackage[],
  inputs: string[],
): Promise<string> {
  const used = packages.filter((p) =>
    inputs.some((input) => input.startsWith(p.localPath + "/"))
  ).sort((a, b) => a.name.localeCompare(b.name));
  const parts = [
    "Third-party software in kudurru's web UI bundle, with its licence.\n",
  ];
  for (const p of used) {
    const names = ["LICENSE", "LICENSE.md", "LICENSE.txt", "license"];
    let text = "";
    for (const name of names) {
      try {
        text = await Deno.readTextFile(join(p.localPath, name));
        break;
      } catch {
        // The next spelling.
      }
    }
    if (text === "") throw new Error(`${p.name} has no LICENSE file`);
    parts.push(`\n${p.name}@${p.version}\n\n${text.trim()}\n`);
  }
  return parts.join("");
}

function indexHtml(script: string, style: string): string {
  // <base> is rewritten when served under listeners.api.pathPrefix; every
  // URL below is relative to it. No inline script or style: the API's CSP
  // (default-src 'self') applies to the page.
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<base href="/">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>kudurru</title>
<link rel="icon" href="${ASSETS}/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${style}">
<script type="module" src="${script}"></script>
</head>
<body>
<div id="app"></div>
<noscript>kudurru's dashboard needs JavaScript; the API is at api/v1 and its documentation at api/docs.</noscript>
</body>
</html>
`;
}

/**
 * `path` with a hash of `bytes` before its extension, so that a browser
 * may cache it for ever: `assets/app.js` becomes `assets/app-1A2B3C4D.js`.
 */
async function contentNamed(path: string, bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  const hash = [...digest.slice(0, 4)].map((b) =>
    b.toString(16).padStart(2, "0")
  ).join("").toUpperCase();
  const dot = path.lastIndexOf(".");
  return `${path.slice(0, dot)}-${hash}${path.slice(dot)}`;
}

/** The module that embeds every file of the build. */
function assetsModule(files: string[]): string {
  const lines = [
    "// Generated by scripts/build_ui.ts (deno task ui:build); do not edit.",
    "// The web UI's files, imported so that the program embeds them.",
    'import indexHtml from "./index.html" with { type: "text" };',
  ];
  const entries: string[] = [];
  files.forEach((file, i) => {
    lines.push(`import file${i} from "./${file}" with { type: "bytes" };`);
    entries.push(`  [${JSON.stringify(file)}, file${i}],`);
  });
  lines.push(
    "",
    '/** index.html, with `<base href="/">` for the server to rewrite. */',
    "export const INDEX_HTML: string = indexHtml;",
    "",
    "/** Every other file, by its path under ui/dist. */",
    "export const FILES: ReadonlyMap<string, Uint8Array> = new Map([",
    ...entries,
    "]);",
    "",
  );
  return lines.join("\n");
}

/** Builds the UI; the files of ui/dist by their path under it. */
export async function buildUi(): Promise<Map<string, Uint8Array>> {
  const packages = await npmPackages();
  const linked = await linkedNodeModules(packages);
  try {
    const result = await esbuild.build({
      entryPoints: { app: ENTRY },
      bundle: true,
      minify: true,
      format: "esm",
      target: "es2022",
      jsx: "automatic",
      jsxImportSource: "preact",
      // esbuild's [hash] also covers the inputs' paths, which hold the
      // npm cache's directory: the name is hashed from the content below.
      entryNames: `${ASSETS}/[name]`,
      outdir: DIST_DIR,
      nodePaths: [join(linked, "node_modules")],
      legalComments: "none",
      metafile: true,
      write: false,
      logLevel: "silent",
    });
    const out = new Map<string, Uint8Array>();
    for (const file of result.outputFiles) {
      out.set(
        await contentNamed(relative(DIST_DIR, file.path), file.contents),
        file.contents,
      );
    }
    const built = [...out.keys()];
    const script = built.find((f) => f.endsWith(".js"));
    const style = built.find((f) => f.endsWith(".css"));
    if (script === undefined || style === undefined) {
      throw new Error(`esbuild gave ${built.join(", ")}: no script or style`);
    }
    const encoder = new TextEncoder();
    const inputs = Object.keys(result.metafile.inputs).map((input) =>
      Deno.realPathSync(join(ROOT, input))
    );
    out.set(
      `${ASSETS}/licenses.txt`,
      encoder.encode(await licences(packages, inputs)),
    );
    out.set(
      `${ASSETS}/icon.svg`,
      await Deno.readFile(join(UI_DIR, "src", "icon.svg")),
    );
    const files = [...out.keys()].sort();
    out.set("index.html", encoder.encode(indexHtml(script, style)));
    out.set("assets.ts", encoder.encode(assetsModule(files)));
    return out;
  } finally {
    await esbuild.stop();
    await Deno.remove(linked, { recursive: true });
  }
}

/** The files ui/dist holds now, by their path under it. */
export async function readDist(): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path);
      else files.set(relative(DIST_DIR, path), await Deno.readFile(path));
    }
  };
  await walk(DIST_DIR).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  return files;
}

if (import.meta.main) {
  const files = await buildUi();
  await Deno.remove(DIST_DIR, { recursive: true }).catch(() => {});
  for (const [path, bytes] of files) {
    await Deno.mkdir(dirname(join(DIST_DIR, path)), { recursive: true });
    await Deno.writeFile(join(DIST_DIR, path), bytes);
  }
  const js = [...files].find(([p]) => p.endsWith(".js"))!;
  await Deno.stdout.write(
    new TextEncoder().encode(
      `ui/dist: ${files.size} files; ${js[0]} ${js[1].length} bytes\n`,
    ),
  );
}
