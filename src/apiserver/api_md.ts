/**
 * The generated parts of docs/api.md: the roles, the permissions table and
 * the verbs (from rbac/permissions.ts) and the error keys (errors.ts),
 * between marker comments, so the page cannot drift from what the API
 * enforces and answers. `deno task gen` rewrites them; api_md_test.ts
 * fails when the committed page is stale.
 */
import {
  markdownTable,
  roleHelpMarkdownTable,
  rolesMarkdownTable,
  verbsMarkdownTable,
} from "../rbac/roles_table.ts";
import { ERROR_KEYS } from "./errors.ts";

/** The page, relative to the repository root. */
export const API_DOCS_PATH = "docs/api.md";

/** The generated blocks, by marker name. */
export function generatedBlocks(): Record<string, string> {
  return {
    roles: roleHelpMarkdownTable(),
    permissions: rolesMarkdownTable(),
    verbs: verbsMarkdownTable(),
    errors: markdownTable(
      ["key", "status", "means"],
      Object.entries(ERROR_KEYS).map(([key, e]) => [
        `\`${key}\``,
        String(e.status),
        e.means,
      ]),
    ),
  };
}

/**
 * `page` with each `<!-- gen:NAME -->…<!-- /gen:NAME -->` block replaced by
 * its generated text. Throws when a block's markers are missing.
 */
export function withGeneratedBlocks(page: string): string {
  let out = page;
  for (const [name, text] of Object.entries(generatedBlocks())) {
    const open = `<!-- gen:${name} -->`;
    const close = `<!-- /gen:${name} -->`;
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) {
      throw new Error(`${API_DOCS_PATH} has no ${open} … ${close} block`);
    }
    out = `${out.slice(0, start + open.length)}\n\n${text.trimEnd()}\n\n${
      out.slice(end)
    }`;
  }
  return out;
}

if (import.meta.main) {
  const target = new URL(`../../${API_DOCS_PATH}`, import.meta.url);
  Deno.writeTextFileSync(
    target,
    withGeneratedBlocks(Deno.readTextFileSync(target)),
  );
}
