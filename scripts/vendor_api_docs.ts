/**
 * Vendors the browser bundle of the API docs page: dist/browser/standalone.js
 * of the @scalar/api-reference that deno.json pins, gzipped into
 * src/apiserver/api_docs/scalar_standalone.js.gz, which the server embeds and
 * serves so the page loads nothing from elsewhere. Run it after changing the
 * pin: `deno task vendor:api-docs`.
 *
 * The package's `exports` do not expose that file, so it is read from the
 * package's folder rather than imported.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
// Nothing here uses the stylesheet: the static import makes Deno install the
// pinned package, which require.resolve below cannot do on a fresh cache.
import "@scalar/api-reference/style.css" with { type: "text" };

const PACKAGE = "@scalar/api-reference";

/** Where the vendored bundle lives. */
export const VENDORED_BUNDLE = new URL(
  "../src/apiserver/api_docs/scalar_standalone.js.gz",
  import.meta.url,
);

/** The pinned package's standalone bundle and version. */
export interface PinnedBundle {
  version: string;
  bytes: Uint8Array;
}

/** Reads standalone.js of the pinned @scalar/api-reference. */
export async function readPinnedBundle(): Promise<PinnedBundle> {
  const dir = packageDir();
  const manifest = JSON.parse(
    await Deno.readTextFile(join(dir, "package.json")),
  ) as { version: string };
  return {
    version: manifest.version,
    bytes: await Deno.readFile(join(dir, "dist", "browser", "standalone.js")),
  };
}

/**
 * Gzip at the highest level with a zero mtime and no file name, so the same
 * bundle gives the same bytes and vendoring again changes nothing.
 */
export function gzipBundle(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(gzipSync(bytes, { level: 9 }));
}

/** The package's folder: its main entry resolves inside it. */
function packageDir(): string {
  let dir = dirname(createRequire(import.meta.url).resolve(PACKAGE));
  for (;;) {
    try {
      const manifest = JSON.parse(
        Deno.readTextFileSync(join(dir, "package.json")),
      ) as { name?: string };
      if (manifest.name === PACKAGE) return dir;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`No package.json of ${PACKAGE} found`);
    dir = up;
  }
}

if (import.meta.main) {
  const { version, bytes } = await readPinnedBundle();
  const gz = gzipBundle(bytes);
  await Deno.writeFile(VENDORED_BUNDLE, gz);
  const out = `${PACKAGE}@${version}: standalone.js ${bytes.length} bytes, ` +
    `gzipped ${gz.length} bytes -> ${VENDORED_BUNDLE.pathname}\n`;
  await Deno.stdout.write(new TextEncoder().encode(out));
}
