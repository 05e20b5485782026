/**
 * Logins per second over the HTTP API at the fixed Argon2id cost
 * (src/auth/password.ts: 19 MiB, 2 passes, 1 lane, hash-wasm), the API
 * in-process on 127.0.0.1 (Deno.serve) over a SQLite Store:
 *
 * - 200: the admin's right password;
 * - 401, unknown user: verified against the dummy hash
 *   (verifyAgainstNothing), which should cost what a wrong password does;
 * - 401, wrong password of an existing user;
 *
 * each with 1 client (sequential) and with 2 and 4 at once (the hashing
 * semaphore runs 2 hashes and queues 32). Per case: logins/s over the
 * whole case, latency p50 / p99, the longest stall of the event loop
 * (hash-wasm computes on the thread that asked, the thread that also
 * serves the API and, in `kudurru serve`, writes the query log), and the
 * answers' statuses.
 *
 * The login limiter blocks an address after 5 failures and a user name
 * after 10 (src/auth/login_limits.ts): every failing login here comes from
 * its own made-up client address (the benchmark's handler sets it, as a
 * proxy-less server would see many clients), and wrong passwords rotate
 * over enough users that none reaches 10. Those users share one hash,
 * written through the Store.
 *
 *   deno run -A bench/api/login_bench.ts [--logins 60] [--concurrency 1,2,4]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { API_VERSION } from "../../src/api/v1alpha1/meta.ts";
import { ARGON2_PARAMETERS } from "../../src/auth/password.ts";
import { openSqliteStore } from "../../src/store/sqlite/sqlite_store.ts";
import {
  ADMIN_PASSWORD,
  cpuModel,
  intOption,
  ms,
  percentile,
  print,
  serveApi,
  table,
} from "./harness.ts";

const HELP = `Usage: deno run -A bench/api/login_bench.ts [options]

  --logins N          logins per case (default 60)
  --concurrency LIST  clients at once, one case each (default 1,2,4)
  --warmup N          untimed logins before the cases (default 4)
  --help              this text

Cases: the right password (200), an unknown user (401, the dummy hash),
a wrong password (401). Prints logins/s, latency p50/p99 and the longest
event-loop stall per case, and the ratios between them.`;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    logins: { type: "string", default: "60" },
    concurrency: { type: "string", default: "1,2,4" },
    warmup: { type: "string", default: "4" },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  print(HELP);
  Deno.exit(0);
}
const LOGINS = intOption("logins", values.logins, 1, 10_000);
const WARMUP = intOption("warmup", values.warmup, 0, 100);
const LEVELS = values.concurrency.split(",").map((c) =>
  intOption("concurrency", c.trim(), 1, 32)
);

/** Users with a known hash, for wrong passwords: each gets at most 8. */
const WRONG_PER_USER = 8;
const CLIENT_HEADER = "x-bench-client";

type Case = "ok" | "unknown user" | "wrong password";

interface Result {
  kind: Case;
  clients: number;
  perSecond: number;
  latencies: number[];
  stallMs: number;
  blockedShare: number;
  statuses: Map<number, number>;
}

let addressCounter = 0;
/** A client address nobody else used in this run (10.0.0.1 onwards). */
function freshAddress(): string {
  const n = ++addressCounter;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

/**
 * A 2 ms timer's view of the event loop: the longest gap between its ticks
 * (minus the 2 ms), and the share of the time spent in gaps of over 4 ms
 * (the loop blocked: by a hash, in this benchmark).
 */
function stallProbe(): { stop(): { worstMs: number; blockedShare: number } } {
  const began = performance.now();
  let last = began;
  let worst = 0;
  let blocked = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const late = now - last - 2;
    worst = Math.max(worst, late);
    if (late > 2) blocked += late;
    last = now;
  }, 2);
  return {
    stop() {
      clearInterval(timer);
      return {
        worstMs: worst,
        blockedShare: blocked / (performance.now() - began),
      };
    },
  };
}

async function main(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-api-login-bench-" });
  try {
    const store = await openSqliteStore(join(dir, "state.db"), {
      node: "bench",
    });
    try {
      await using served = await serveApi({
        store,
        dataDir: dir,
        clientFrom: (request) =>
          request.headers.get(CLIENT_HEADER) ?? undefined,
      });
      // Users for wrong passwords, with the admin's hash (one hash for all).
      const admin = await store.get({
        kind: "User",
        namespace: "",
        name: "admin",
      });
      const hash = (admin.spec as { passwordHash: string }).passwordHash;
      const maxClients = Math.max(...LEVELS);
      const users = Math.ceil((LOGINS + maxClients) / WRONG_PER_USER) *
          LEVELS.length + 1;
      for (let i = 0; i < users; i++) {
        await store.apply({
          apiVersion: API_VERSION,
          kind: "User",
          metadata: { name: `bench${i}` },
          spec: { passwordHash: hash },
        }, { manager: "api", actor: "bench" });
      }
      let wrongCount = 0;

      const login = async (kind: Case): Promise<number> => {
        const body = kind === "ok"
          ? { username: "admin", password: ADMIN_PASSWORD }
          : kind === "unknown user"
          ? { username: `nobody${addressCounter}`, password: ADMIN_PASSWORD }
          : {
            username: `bench${Math.floor(wrongCount++ / WRONG_PER_USER)}`,
            password: "not the password at all",
          };
        const res = await fetch(`${served.url}/api/v1/auth/login`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            [CLIENT_HEADER]: freshAddress(),
          },
          body: JSON.stringify(body),
        });
        await res.body?.cancel();
        return res.status;
      };

      // Warm-up: JIT, the WASM module, and the dummy hash (made at the
      // first unknown user).
      for (let i = 0; i < WARMUP; i++) {
        await login("ok");
        await login("unknown user");
        await login("wrong password");
      }

      const results: Result[] = [];
      for (const clients of LEVELS) {
        for (const kind of ["ok", "unknown user", "wrong password"] as const) {
          const latencies: number[] = [];
          const statuses = new Map<number, number>();
          let left = LOGINS;
          const probe = stallProbe();
          const began = performance.now();
          await Promise.all(
            Array.from({ length: clients }, async () => {
              while (left > 0) {
                left--;
                const t = performance.now();
                const status = await login(kind);
                latencies.push(performance.now() - t);
                statuses.set(status, (statuses.get(status) ?? 0) + 1);
              }
            }),
          );
          const seconds = (performance.now() - began) / 1000;
          const stall = probe.stop();
          results.push({
            kind,
            clients,
            perSecond: LOGINS / seconds,
            latencies,
            stallMs: stall.worstMs,
            blockedShare: stall.blockedShare,
            statuses,
          });
        }
      }

      const find = (kind: Case, clients: number) =>
        results.find((r) => r.kind === kind && r.clients === clients)!;
      print(
        `API login benchmark: POST /api/v1/auth/login, Argon2id m=${ARGON2_PARAMETERS.memorySize} KiB t=${ARGON2_PARAMETERS.iterations} p=${ARGON2_PARAMETERS.parallelism} (hash-wasm)`,
      );
      print(
        `  ${LOGINS} logins per case after ${WARMUP} untimed of each; client and server in one process; SQLite store`,
      );
      print(`  host: ${cpuModel()}; Deno ${Deno.version.deno}`);
      print();
      const lines = table([
        [
          "case",
          "clients",
          "logins/s",
          "p50 ms",
          "p99 ms",
          "stall ms",
          "blocked",
          "÷ 1 client",
          "statuses",
        ],
        ...results.map((r) => [
          r.kind,
          String(r.clients),
          r.perSecond.toFixed(1),
          ms(percentile(r.latencies, 50)),
          ms(percentile(r.latencies, 99)),
          ms(r.stallMs),
          `${(r.blockedShare * 100).toFixed(0)} %`,
          (r.perSecond / find(r.kind, LEVELS[0]!).perSecond).toFixed(2),
          [...r.statuses].map(([s, n]) => `${s}×${n}`).join(" "),
        ]),
      ]);
      for (const line of lines) print(line);
      print();
      print("  unknown user ÷ wrong password, time per login (1.00 = alike):");
      for (const clients of LEVELS) {
        const unknown = find("unknown user", clients);
        const wrong = find("wrong password", clients);
        const ok = find("ok", clients);
        print(
          `    ${clients} client${clients === 1 ? " " : "s"}: ` +
            `mean ${(wrong.perSecond / unknown.perSecond).toFixed(2)}, ` +
            `p50 ${
              (percentile(unknown.latencies, 50) /
                percentile(wrong.latencies, 50)).toFixed(2)
            }; unknown ÷ right password (mean) ${
              (ok.perSecond / unknown.perSecond).toFixed(2)
            }`,
        );
      }
      print(
        "  stall: the longest gap of a 2 ms timer in this process during the case, minus 2 ms;",
      );
      print(
        "  blocked: the share of the case's time in gaps over 4 ms (hash-wasm hashes on the event loop's thread)",
      );
    } finally {
      await store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

await main();
