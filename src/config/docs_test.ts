import assert from "node:assert/strict";
import { CONFIG_DOCS_PATH, renderConfigDocs } from "./docs.ts";
import { settingsTable } from "./settings_table.ts";

Deno.test("renderConfigDocs matches the committed docs/configuration.md", () => {
  const committed = Deno.readTextFileSync(
    new URL(`../../${CONFIG_DOCS_PATH}`, import.meta.url),
  );
  assert.ok(
    committed === renderConfigDocs(),
    `${CONFIG_DOCS_PATH} is out of date: run \`deno run -A src/config/docs.ts\``,
  );
});

Deno.test("renderConfigDocs lists every key and its environment variable", () => {
  const page = renderConfigDocs();
  for (const s of settingsTable()) {
    assert.ok(page.includes(`| \`${s.key}\` |`), s.key);
    assert.ok(page.includes(`\`${s.env}\``), s.env);
  }
});
