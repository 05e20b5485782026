/**
 * Retries a check made of assertions until it passes: for what a running
 * server does a moment later (a list fetched, objects applied). On timeout
 * the check's last error is thrown, so the failure reads as the assertion.
 */
export async function untilPasses(
  check: () => Promise<void>,
  timeoutMs = 8000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
