/**
 * The one logger: structured fields, one line per event on stderr, durations
 * in seconds. `KUDURRU_LOG_FORMAT=json` switches from logfmt-style text to JSON
 * lines; `KUDURRU_LOG_LEVEL` sets the threshold (debug|info|warn|error). Both
 * are read in any case; `kudurru serve` refuses other values (readLogEnv).
 */

export type Level = "debug" | "info" | "warn" | "error";
export type Fields = Record<string, unknown>;

const ORDER: Record<Level, number> = {
  debug: 10,
  info: 20,
  warn: 30,
  error: 40,
};

export interface Logger {
  debug(msg: string, fields?: Fields): void;
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
  /** A logger that adds these fields to every line. */
  with(fields: Fields): Logger;
}

/** Where lines go; tests capture them. */
export type Sink = (line: string) => void;

const encoder = new TextEncoder();
const stderrSink: Sink = (line) => {
  Deno.stderr.writeSync(encoder.encode(line + "\n"));
};

function envOr(name: string, fallback: string): string {
  try {
    return Deno.env.get(name) ?? fallback;
  } catch {
    return fallback; // no --allow-env: keep the defaults
  }
}

/** The values KUDURRU_LOG_LEVEL takes (in any case). */
export const LOG_LEVELS: readonly Level[] = ["debug", "info", "warn", "error"];

/** The values KUDURRU_LOG_FORMAT takes (in any case). */
export const LOG_FORMATS = ["text", "json"] as const;

function levelOf(text: string): Level | undefined {
  const lower = text.trim().toLowerCase();
  return LOG_LEVELS.find((l) => l === lower);
}

function formatOf(text: string): "text" | "json" | undefined {
  const lower = text.trim().toLowerCase();
  return LOG_FORMATS.find((f) => f === lower);
}

/**
 * KUDURRU_LOG_LEVEL and KUDURRU_LOG_FORMAT, read in any case; unset or
 * empty means info and text.
 *
 * @throws {Error} naming the variable and the values it takes, for any
 *   other value
 */
export function readLogEnv(
  env: (name: string) => string | undefined,
): { level: Level; json: boolean } {
  const levelText = env("KUDURRU_LOG_LEVEL") ?? "";
  const formatText = env("KUDURRU_LOG_FORMAT") ?? "";
  const level = levelText.trim() === "" ? "info" : levelOf(levelText);
  if (level === undefined) {
    throw new Error(
      `KUDURRU_LOG_LEVEL=${JSON.stringify(levelText)} is not a log level: use ${
        LOG_LEVELS.join(", ")
      }`,
    );
  }
  const format = formatText.trim() === "" ? "text" : formatOf(formatText);
  if (format === undefined) {
    throw new Error(
      `KUDURRU_LOG_FORMAT=${
        JSON.stringify(formatText)
      } is not a log format: use ${LOG_FORMATS.join(" or ")}`,
    );
  }
  return { level, json: format === "json" };
}

function formatValue(v: unknown): string {
  if (v instanceof Error) return JSON.stringify(v.message);
  if (typeof v === "string") {
    return /^[\w./:@+-]+$/.test(v) ? v : JSON.stringify(v);
  }
  return JSON.stringify(v) ?? String(v);
}

export interface LoggerOptions {
  level?: Level;
  json?: boolean;
  sink?: Sink;
}

export function createLogger(
  opts: LoggerOptions = {},
  base: Fields = {},
): Logger {
  // Lenient here (listener workers create loggers too): serve has already
  // refused a value that is neither (readLogEnv).
  const level = opts.level ?? levelOf(envOr("KUDURRU_LOG_LEVEL", "")) ??
    "info";
  const json = opts.json ??
    formatOf(envOr("KUDURRU_LOG_FORMAT", "")) === "json";
  const sink = opts.sink ?? stderrSink;
  const threshold = ORDER[level] ?? ORDER.info;

  function emit(lvl: Level, msg: string, fields: Fields = {}): void {
    if (ORDER[lvl] < threshold) return;
    const all = { ...base, ...fields };
    const time = new Date().toISOString();
    if (json) {
      const plain: Fields = {};
      for (const [k, v] of Object.entries(all)) {
        plain[k] = v instanceof Error ? v.message : v;
      }
      sink(JSON.stringify({ time, level: lvl, msg, ...plain }));
      return;
    }
    const tail = Object.entries(all)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${formatValue(v)}`)
      .join(" ");
    sink(`${time} ${lvl.toUpperCase()} ${msg}${tail ? " " + tail : ""}`);
  }

  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    with: (fields) =>
      createLogger({ level, json, sink }, { ...base, ...fields }),
  };
}

/** Collects lines in memory; for tests that assert on what was logged. */
export function memoryLogger(
  level: Level = "debug",
): Logger & { lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({
    level,
    json: true,
    sink: (l) => lines.push(l),
  });
  return Object.assign(logger, { lines });
}
