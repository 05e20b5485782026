/**
 * `kudurru doctor`'s look at the upstream servers: each server of each
 * group is asked one real question (`. NS`) on its own, through the same
 * client the server forwards with (src/upstream/), so a TLS name, a DoH
 * path and the bootstrap resolution are tried as serve would try them.
 * Groups set through the API (`PATCH /api/v1/settings`) are not seen: the
 * file's are asked.
 */
import type { Config } from "../config/schema.ts";
import { createLogger } from "../log/logger.ts";
import { createResolver } from "../upstream/resolver.ts";
import { messageOf } from "../server/disk_errors.ts";
import { fail, type Finding, ok } from "./doctor_report.ts";

const CHECK = "upstream";

/** The longest one server is given, whatever its group's timeout. */
export const UPSTREAM_PROBE_MS = 3000;

/** Asks every configured server; one finding each, in configuration order. */
export async function checkUpstreams(
  upstreams: Config["upstreams"],
  timeoutMs = UPSTREAM_PROBE_MS,
): Promise<Finding[]> {
  const probes: { group: string; server: string }[] = [];
  for (const [group, settings] of Object.entries(upstreams.groups)) {
    for (const server of settings.servers) probes.push({ group, server });
  }
  return await Promise.all(
    probes.map((p) => askOne(upstreams, p.group, p.server, timeoutMs)),
  );
}

/** One server alone in a group of its own, asked `. NS` once. */
async function askOne(
  upstreams: Config["upstreams"],
  group: string,
  server: string,
  timeoutMs: number,
): Promise<Finding> {
  const settings = upstreams.groups[group]!;
  const where = `upstreams.groups.${group}: ${server}`;
  let resolver;
  try {
    resolver = createResolver({
      ...upstreams,
      groups: {
        [group]: {
          ...settings,
          servers: [server],
          strategy: "strict",
          timeout: Math.min(settings.timeout, timeoutMs),
        },
      },
    }, { logger: createLogger({ level: "error", sink: () => {} }) });
  } catch (err) {
    return fail(CHECK, `${where}: ${messageOf(err)}; fix the server's text`);
  }
  try {
    const result = await resolver.resolve(group, {
      name: ".",
      type: 2, // NS
      class: 1,
      dnssecOk: false,
      checkingDisabled: false,
    });
    if (result.ok) {
      return ok(
        CHECK,
        `${where} answered ". NS" in ${Math.round(result.rttMs)} ms`,
      );
    }
    return fail(
      CHECK,
      `${where} did not answer ". NS" (${result.reason}: ${result.detail}): check that it runs and that this machine may reach it (firewall, routes), or remove it from the group`,
    );
  } finally {
    await resolver.close();
  }
}
