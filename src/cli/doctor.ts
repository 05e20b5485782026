/**
 * `kudurru doctor`: checks this machine's kudurru setup, one line per
 * finding with what to do. Only local facts and the configured upstreams
 * are looked at; nothing off the machine is asked about the clock. It
 * writes nothing but one probe file in the data directory.
 */
import { type Command, parseFlags, UsageError } from "./command.ts";
import { loadConfig } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import { machineFacts } from "../server/machine.ts";
import { messageOf } from "../server/disk_errors.ts";
import { isDirectory } from "../server/data_dir.ts";
import {
  fail,
  type Finding,
  findingsJson,
  findingsText,
  ok,
  passed,
  skip,
} from "./doctor_report.ts";
import { checkDataDir, checkDiskSpace } from "./doctor_data_dir.ts";
import { checkDatabase, QUERYLOG_DB, STATE_DB } from "./doctor_databases.ts";
import {
  findServer,
  leaderFinding,
  type ServerState,
} from "./doctor_server.ts";
import { bindingsOf, checkPorts } from "./doctor_ports.ts";
import {
  certificateFinding,
  certificateSources,
  readCertificates,
} from "./doctor_certificates.ts";
import { clockFindings, dataFileMarks, programMark } from "./doctor_clock.ts";
import { checkUpstreams } from "./doctor_upstreams.ts";

export const doctorCommand: Command = {
  name: "doctor",
  summary: "Check this machine's kudurru setup and say what to fix",
  usage:
    "  kudurru doctor [--config FILE] [--data-dir DIR] [--offline] [--json]\n" +
    "  checks the configuration, the data directory and its databases, the listener\n" +
    "  ports, the certificates, the clock (against local files only), the upstreams\n" +
    "  (one query each; --offline skips them) and the leader; exits 1 when one fails",
  async run(args, io) {
    const { values } = parseFlags("doctor", args, {
      config: { type: "string", short: "c" },
      "data-dir": { type: "string" },
      offline: { type: "boolean" },
      json: { type: "boolean" },
    }, 0);
    if (values["data-dir"]?.trim() === "") {
      throw new UsageError("--data-dir needs a directory, not an empty string");
    }
    const findings = await diagnose({
      ...(values.config !== undefined && { config: values.config }),
      ...(values["data-dir"] !== undefined && { dataDir: values["data-dir"] }),
      offline: values.offline ?? false,
    });
    io.stdout(values.json ? findingsJson(findings) : findingsText(findings));
    return passed(findings) ? 0 : 1;
  },
};

export interface DoctorOptions {
  /** --config; else $KUDURRU_CONFIG, else the default path. */
  config?: string;
  /** --data-dir; else node.dataDir. */
  dataDir?: string;
  /** Skip the upstream queries. */
  offline: boolean;
  now?: Date;
}

/** Every check, in the order they print. */
export async function diagnose(opts: DoctorOptions): Promise<Finding[]> {
  const now = opts.now ?? new Date();
  const out: Finding[] = [];
  const loaded = configFinding(opts.config);
  out.push(loaded.finding);
  const config = loaded.config;
  const dataDir = opts.dataDir ?? config?.node.dataDir;
  const noConfig = "the configuration does not load (see config above)";

  let server: ServerState = { state: "stopped" };
  if (dataDir === undefined) {
    out.push(
      skip("data directory", `${noConfig}; or name it with --data-dir`),
    );
  } else {
    out.push(...await checkDataDir(dataDir));
    if (await isDirectory(dataDir)) {
      out.push(await checkDiskSpace(dataDir));
      out.push(await checkDatabase(dataDir, STATE_DB));
      out.push(await checkDatabase(dataDir, QUERYLOG_DB));
      server = await findServer(dataDir);
    }
  }

  const certificates = config && dataDir !== undefined
    ? await readCertificates(certificateSources(config.listeners, dataDir))
    : [];
  if (config) {
    out.push(...checkPorts(bindingsOf(config.listeners), server));
    out.push(...certificates.map((c) => certificateFinding(c, now)));
  } else {
    out.push(skip("port", noConfig), skip("certificate", noConfig));
  }
  out.push(
    ...clockFindings(now, {
      program: await programMark(),
      dataFiles: dataDir === undefined ? [] : await dataFileMarks(dataDir),
      certificates,
    }),
  );
  if (!config) out.push(skip("upstream", noConfig));
  else if (opts.offline) out.push(skip("upstream", "--offline: not asked"));
  else out.push(...await checkUpstreams(config.upstreams));
  out.push(
    leaderFinding(server, config?.node.name ?? machineFacts().hostname),
  );
  return out;
}

/** The configuration as serve would load it, and the finding on it. */
function configFinding(
  path: string | undefined,
): { finding: Finding; config?: Config } {
  const facts = machineFacts();
  try {
    const loaded = loadConfig({
      ...(path !== undefined && { path }),
      env: Deno.env.toObject(),
      isRoot: facts.isRoot,
      hostname: facts.hostname,
      cwd: facts.cwd,
    });
    const from = loaded.source === null
      ? "no configuration file: the embedded defaults and KUDURRU_* variables"
      : `${loaded.source} loads and validates`;
    return { finding: ok("config", from), config: loaded.config };
  } catch (err) {
    return {
      finding: fail(
        "config",
        `${messageOf(err)}; fix it, then run doctor again`,
      ),
    };
  }
}
