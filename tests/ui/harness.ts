/**
 * What the UI's browser tests share: a zone for kudurru to serve, waiting
 * for the API, and running a scenario (scenarios/) as a child process with
 * -A (chromium.ts says why); a failing scenario fails its test with its
 * output. KUDURRU_SCREENSHOTS=<dir> keeps the screenshots scenarios take.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import dnsPacket from "dns-packet";
import { API_VERSION, type KObject } from "../../src/api/v1alpha1/meta.ts";

/** The admin's password in tests that set KUDURRU_ADMIN_PASSWORD. */
export const PASSWORD = "the UI test's admin passphrase";

/** home.test. with nas.home.test. A 192.168.1.10. */
export const HOME_ZONE: KObject[] = [
  {
    apiVersion: API_VERSION,
    kind: "DNSZone",
    metadata: { name: "home" },
    spec: { zoneName: "home.test.", type: "primary" },
  },
  {
    apiVersion: API_VERSION,
    kind: "DNSRecordSet",
    metadata: { name: "nas" },
    spec: {
      zoneRef: { name: "home" },
      endpoints: [{
        dnsName: "nas.home.test",
        recordType: "A",
        targets: ["192.168.1.10"],
      }],
    },
  },
];

/** Runs scenarios/<name>.ts; resolves to its output, throws with it on failure. */
export async function scenario(
  name: string,
  env: Record<string, string>,
): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(import.meta.dirname!, "scenarios", `${name}.ts`)],
    env: {
      ...env,
      NO_COLOR: "1",
      ...(Deno.env.get("KUDURRU_SCREENSHOTS") !== undefined && {
        KUDURRU_SCREENSHOTS: Deno.env.get("KUDURRU_SCREENSHOTS")!,
      }),
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  const out = await child.output();
  clearTimeout(timer);
  const text = new TextDecoder().decode(out.stdout) +
    new TextDecoder().decode(out.stderr);
  assert.ok(out.success, `scenario ${name} failed:\n${text}`);
  assert.match(text, /^ok$/m);
  return text;
}

/** Runs scenario `name` against `server`, logging in with `password`. */
export function scenarioOn(
  name: string,
  server: { apiUrl: string; port: number },
  password: string,
): Promise<string> {
  return scenario(name, {
    KUDURRU_URL: server.apiUrl,
    KUDURRU_DNS_PORT: String(server.port),
    KUDURRU_PASSWORD: password,
  });
}

/**
 * Waits until the API answers (it starts after the DNS listeners, whose
 * readiness startKudurru waited for), then returns the first-start
 * password kudurru printed, if it printed one.
 */
export async function apiUp(
  server: { apiUrl: string; output(): string },
): Promise<string | undefined> {
  for (let i = 0; i < 300; i++) {
    const answer = await fetch(`${server.apiUrl}/api/v1/auth/status`)
      .catch(() => undefined);
    await answer?.body?.cancel();
    if (answer?.ok) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const line = server.output().split("\n").find((l) =>
    l.includes("First start:")
  );
  const match = line && /password=("(?:[^"\\]|\\.)*"|\S+)/.exec(line);
  if (!match) return undefined;
  const value = match[1]!;
  return value.startsWith('"') ? JSON.parse(value) as string : value;
}

/** The address every name has at answeringUpstream(). */
export const UPSTREAM_ADDRESS = "203.0.113.7";

/**
 * A stand-in for kudurru's upstreams on a loopback UDP port: every A
 * question gets UPSTREAM_ADDRESS (TTL 60), every other an empty answer.
 */
export function answeringUpstream(): AsyncDisposable & { port: number } {
  const socket = Deno.listenDatagram({
    transport: "udp",
    hostname: "127.0.0.1",
    port: 0,
  });
  const serving = (async () => {
    for await (const [bytes, from] of socket) {
      try {
        const query = dnsPacket.decode(Buffer.from(bytes));
        const question = query.questions?.[0];
        if (question === undefined) continue;
        const answer = dnsPacket.encode({
          type: "response",
          id: query.id,
          flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
          questions: [question],
          answers: question.type === "A"
            ? [{
              type: "A",
              name: question.name,
              ttl: 60,
              data: UPSTREAM_ADDRESS,
            }]
            : [],
        });
        await socket.send(answer, from);
      } catch {
        // Not a question: a real upstream would drop it too.
      }
    }
  })().catch(() => {});
  return {
    port: (socket.addr as Deno.NetAddr).port,
    async [Symbol.asyncDispose]() {
      socket.close();
      await serving;
    },
  };
}
