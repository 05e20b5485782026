/**
 * What the CLI's end-to-end tests against a real `kudurru serve` share:
 * the first admin's password they start it with, a command run in-process
 * with its own environment (a temporary XDG_CONFIG_HOME holds the
 * contexts), and a poll for what the server applies a moment later.
 */
import { bufferIO } from "../command.ts";
import { runCli } from "../run.ts";

/** KUDURRU_ADMIN_PASSWORD of the servers these tests start. */
export const PASSWORD = "correct horse battery staple";

/** Runs `kudurru ARGS` in this process; its exit code and output. */
export async function cli(
  args: string[],
  env: Record<string, string>,
  stdin = "",
): Promise<{ code: number; stdout: string; stderr: string }> {
  const b = bufferIO(stdin, env);
  const code = await runCli(args, b.io);
  return { code, stdout: b.stdout(), stderr: b.stderr() };
}

/**
 * Polls `check` until it holds, for up to 30 s: the server applies writes,
 * logs queries and fetches lists a moment later.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const found = await check();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * `kudurru login --server URL --username admin --name NAME` with PASSWORD
 * on stdin, into `env`'s contexts; throws with its stderr unless it exits 0.
 */
export async function logInAsAdmin(
  server: string,
  env: Record<string, string>,
  name = "lab",
): Promise<void> {
  const login = await cli(
    ["login", "--server", server, "--username", "admin", "--name", name],
    env,
    `${PASSWORD}\n`,
  );
  if (login.code !== 0) {
    throw new Error(`kudurru login exited ${login.code}: ${login.stderr}`);
  }
}
