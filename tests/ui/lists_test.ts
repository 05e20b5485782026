/**
 * The block lists, groups and policies pages in a real browser against a
 * real `kudurru serve` (harness.ts runs the scenario): lists and their rule
 * counts, a list added and attached in the policy editor blocking a dig,
 * the why tool naming it, a schedule edited, members, a group a file
 * manages shown read-only, a viewer's page without the controls it may
 * not use, and a phone. The server answers
 * for local.test. only, so the names these tests block are no zone's
 * (kudurru never blocks the names of its own zones).
 */
import { API_VERSION } from "../../src/api/v1alpha1/meta.ts";
import { freePort } from "../../src/testing/free_port.ts";
import {
  LOCAL_READY_ZONE,
  localReadyZoneObject,
  startKudurru,
} from "../../src/testing/kudurru_server.ts";
import { apiUp, PASSWORD, scenario } from "./harness.ts";

/** Longer than the refresh route waits for downloads before its 202 (10 s). */
const SLOW_MS = 12_000;

Deno.test({
  name:
    "ui: block lists, the policy editor, why, a schedule, members; a viewer sees no controls; a refresh slower than the route waits says so",
  async fn() {
    // A list source on loopback: the first download is quick, later ones
    // take SLOW_MS (or until the download is abandoned).
    let asked = 0;
    await using source = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      async (request) => {
        if (asked++ > 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, SLOW_MS);
            request.signal.addEventListener("abort", () => {
              clearTimeout(timer);
              resolve();
            });
          });
        }
        return new Response("||slow-list.test^\n");
      },
    );
    await using server = await startKudurru({
      objects: [localReadyZoneObject(), {
        apiVersion: API_VERSION,
        kind: "BlockList",
        metadata: { name: "slow", namespace: "default" },
        spec: {
          sources: [{ url: `http://127.0.0.1:${source.addr.port}/slow.txt` }],
        },
      }, {
        // Managed by the file: read-only in the UI.
        apiVersion: API_VERSION,
        kind: "ClientGroup",
        metadata: { name: "office", namespace: "default" },
        spec: { clients: [{ cidr: "10.1.0.0/16", name: "office lan" }] },
      }],
      readyZone: LOCAL_READY_ZONE,
      upstreamPort: freePort(),
      env: { KUDURRU_ADMIN_PASSWORD: PASSWORD },
    });
    await apiUp(server);
    const env = {
      KUDURRU_URL: server.apiUrl,
      KUDURRU_DNS_PORT: String(server.port),
      KUDURRU_PASSWORD: PASSWORD,
    };
    await scenario("lists", env);
    await scenario("lists_refresh", env);
  },
});
