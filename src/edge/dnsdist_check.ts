/**
 * `dnsdist --check-config -C FILE`: dnsdist loads the Lua without binding a
 * socket or starting a thread, and says whether it would start. dnsdist 1.7
 * exits 0 even after some errors it prints (a newServer it cannot create
 * prints "Error creating new server" and is skipped), so an "Error" or
 * "Fatal" line fails the check as well as a non-zero exit.
 */

/** What the check found. */
export interface DnsdistCheck {
  ok: boolean;
  /** dnsdist's own words (stdout and stderr), trimmed. */
  output: string;
}

/** Lines that mean dnsdist would not run the configuration as written. */
const FAILURE_LINE = /^(Error|Fatal)\b/m;

/**
 * Runs the check. Never rejects for a bad configuration; rejects only when
 * dnsdist cannot be run at all (not installed), with a message that says so.
 */
export async function checkDnsdistConfig(
  file: string,
  dnsdist = "dnsdist",
): Promise<DnsdistCheck> {
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(dnsdist, {
      args: ["--check-config", "-C", file],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (error) {
    throw new Error(
      `Cannot run "${dnsdist}" to check its configuration: ${
        (error as Error).message
      } (install dnsdist 1.7 or later, e.g. apt-get install dnsdist)`,
    );
  }
  const text = new TextDecoder();
  const output = (text.decode(out.stdout) + text.decode(out.stderr)).trim();
  return { ok: out.success && !FAILURE_LINE.test(output), output };
}
