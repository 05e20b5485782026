/**
 * The health registry behind /healthz/* (docs/design.md#health-and-lameduck).
 * Roles register a check that says whether they are ready and, when not,
 * why; the server marks the end of startup and, on SIGTERM, lameduck: readiness
 * fails so load balancers and Kubernetes stop sending traffic while DNS keeps
 * answering for the grace period.
 */

/** What a check says. */
export interface CheckResult {
  ready: boolean;
  /** Why not ready (or a note when ready); shown to operators. */
  reason?: string;
}

/** A role's readiness; called on every /healthz/ready, so keep it cheap and synchronous. */
export type HealthCheck = () => CheckResult;

/** One line of the readiness report. */
export interface CheckReport {
  name: string;
  ready: boolean;
  reason?: string;
}

/** The body of /healthz/ready. */
export interface ReadyReport {
  ready: boolean;
  checks: CheckReport[];
}

/** The process's health state. */
export interface Health {
  /**
   * Adds a role's check ("store", "snapshot", "listeners", "lists").
   * Returns a function that removes it.
   * @throws {Error} when a check of that name exists
   */
  register(name: string, check: HealthCheck): () => void;
  /** What startup is doing now ("loading objects"), for the probes' reason. */
  starting(step: string): void;
  /** Startup is over: /healthz/startup turns 200. */
  markStarted(): void;
  /** Shutting down: /healthz/ready turns 503 for good; DNS keeps answering. */
  setLameduck(): void;
  readonly started: boolean;
  /** "still starting: <step>" while starting; "" once started. */
  readonly startupReason: string;
  readonly lameduck: boolean;
  /** Runs every check now. */
  ready(): ReadyReport;
}

/** The built-in checks' names; roles cannot take them. */
export const STARTUP_CHECK = "startup";
export const LAMEDUCK_CHECK = "lameduck";

/** A fresh registry: not started, no checks. */
export function createHealth(): Health {
  const checks = new Map<string, HealthCheck>();
  let started = false;
  let step = "";
  let lameduck = false;
  const startupReason = () =>
    started ? "" : step === "" ? "still starting" : `still starting: ${step}`;

  function run(name: string, check: HealthCheck): CheckReport {
    let result: CheckResult;
    try {
      result = check();
    } catch (err) {
      // A check that throws is a role that cannot say it is ready.
      const why = err instanceof Error ? err.message : String(err);
      return { name, ready: false, reason: `check failed: ${why}` };
    }
    const ready = result?.ready === true;
    const reason = typeof result?.reason === "string"
      ? result.reason
      : ready
      ? undefined
      : "not ready";
    return reason === undefined ? { name, ready } : { name, ready, reason };
  }

  return {
    register(name, check) {
      if (name === STARTUP_CHECK || name === LAMEDUCK_CHECK) {
        throw new Error(`Cannot register health check "${name}": reserved`);
      }
      if (checks.has(name)) {
        throw new Error(
          `Cannot register health check "${name}": registered already`,
        );
      }
      checks.set(name, check);
      return () => {
        if (checks.get(name) === check) checks.delete(name);
      };
    },
    starting(now) {
      step = now;
    },
    markStarted() {
      started = true;
    },
    setLameduck() {
      lameduck = true;
    },
    get started() {
      return started;
    },
    get startupReason() {
      return startupReason();
    },
    get lameduck() {
      return lameduck;
    },
    ready() {
      const reports: CheckReport[] = [
        started ? { name: STARTUP_CHECK, ready: true } : {
          name: STARTUP_CHECK,
          ready: false,
          reason: startupReason(),
        },
      ];
      if (lameduck) {
        reports.push({
          name: LAMEDUCK_CHECK,
          ready: false,
          reason:
            "shutting down (lameduck): DNS still answers until the grace period ends",
        });
      }
      for (const [name, check] of checks) reports.push(run(name, check));
      return { ready: reports.every((r) => r.ready), checks: reports };
    },
  };
}
