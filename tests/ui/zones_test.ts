/**
 * The zone pages in a real browser against a real `kudurru serve`
 * (harness.ts runs the scenarios): an admin edits records, imports and
 * exports, and edits and deletes a zone; a viewer sees no control that
 * writes, and the API refuses the write anyway.
 */
import { freePort } from "../../src/testing/free_port.ts";
import { startKudurru } from "../../src/testing/kudurru_server.ts";
import { apiUp, HOME_ZONE, PASSWORD, scenario } from "./harness.ts";

async function run(name: string): Promise<void> {
  await using server = await startKudurru({
    objects: HOME_ZONE,
    readyZone: "home.test.",
    upstreamPort: freePort(),
    env: { KUDURRU_ADMIN_PASSWORD: PASSWORD },
  });
  await apiUp(server);
  await scenario(name, {
    KUDURRU_URL: server.apiUrl,
    KUDURRU_DNS_PORT: String(server.port),
    KUDURRU_PASSWORD: PASSWORD,
  });
}

Deno.test({
  name:
    "ui: zones: an added record is answered by dig, a bad one is named under its field, import checks first, the export downloads, a zone's SOA is edited and the zone deleted",
  fn: () => run("zones_admin"),
});

Deno.test({
  name:
    "ui: zones: a viewer sees the records with no control that writes, and a write with its session is 403 naming what is missing",
  fn: () => run("zones_viewer"),
});
