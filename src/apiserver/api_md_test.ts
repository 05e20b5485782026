import assert from "node:assert/strict";
import { API_DOCS_PATH, withGeneratedBlocks } from "./api_md.ts";
import { ROLES } from "../rbac/permissions.ts";
import { ERROR_KEYS } from "./errors.ts";

Deno.test("docs/api.md carries the current roles and permissions tables", () => {
  const committed = Deno.readTextFileSync(
    new URL(`../../${API_DOCS_PATH}`, import.meta.url),
  );
  assert.ok(
    committed === withGeneratedBlocks(committed),
    `${API_DOCS_PATH} is out of date: run \`deno task gen\``,
  );
  for (const role of ROLES) assert.ok(committed.includes(`\`${role}\``), role);
  for (const key of Object.keys(ERROR_KEYS)) {
    assert.ok(committed.includes(`\`${key}\``), key);
  }
});

Deno.test("withGeneratedBlocks refuses a page without its markers", () => {
  assert.throws(() => withGeneratedBlocks("# API\n"), /gen:roles/);
});
