import assert from "node:assert/strict";
import { freePort, freePortFrom, PORT_RANGE } from "./free_port.ts";

Deno.test("freePort never hands out a port twice in a row of calls", () => {
  // The kernel may give a probe's port again at once; one config's
  // listeners each need their own.
  const ports = Array.from({ length: 100 }, () => freePort());
  assert.equal(new Set(ports).size, ports.length);
});

Deno.test("freePort's range is outside this machine's ephemeral range", async () => {
  // Another test's client socket takes its port from the ephemeral range,
  // and could take a port handed out here before the peer server binds it.
  // Deno reads /proc/sys only with --allow-all; cat can.
  const { stdout } = await new Deno.Command("cat", {
    args: ["/proc/sys/net/ipv4/ip_local_port_range"],
  }).output();
  const [low, high] = new TextDecoder().decode(stdout).trim().split(/\s+/)
    .map(Number) as [number, number];
  assert.ok(
    PORT_RANGE.to <= low || PORT_RANGE.from > high,
    `kudurru's test ports ${PORT_RANGE.from}-${PORT_RANGE.to} overlap the ` +
      `ephemeral range ${low}-${high}`,
  );
  for (let i = 0; i < 50; i++) {
    const port = freePort();
    assert.ok(port >= PORT_RANGE.from && port < PORT_RANGE.to, `${port}`);
  }
});

Deno.test("freePort skips a port another test module has reserved", () => {
  // Modules run in parallel isolates that share no memory: the claim lives
  // in a file, as another module's freePort would leave it.
  const dir = `${Deno.env.get("TMPDIR") ?? "/tmp"}/kudurru-test-ports`;
  Deno.mkdirSync(dir, { recursive: true });
  const first = PORT_RANGE.from + 1000 + Math.floor(Math.random() * 20_000);
  const claimed: string[] = [];
  try {
    for (let port = first; port < first + 10; port++) {
      const file = `${dir}/${port}`;
      try {
        Deno.writeTextFileSync(file, "", { createNew: true });
        claimed.push(file);
      } catch {
        // Reserved already, maybe long ago (a stale claim freePort may take
        // over): claimed afresh, and left for its owner.
        const now = new Date();
        Deno.utimeSync(file, now, now);
      }
    }
    const port = freePortFrom(first);
    assert.ok(
      port >= first + 10,
      `${port} is not one of ${first}-${first + 9}`,
    );
  } finally {
    for (const file of claimed) Deno.removeSync(file);
  }
});
