/**
 * `kudurru doctor`'s look at the listener ports. With a server running on
 * the data directory the ports are its own and are left alone; otherwise
 * each is bound for a moment (a TCP listen or a UDP bind, closed at once),
 * which says whether serve could take it.
 */
import type { Config } from "../config/schema.ts";
import { messageOf } from "../server/disk_errors.ts";
import { fail, type Finding, ok, skip } from "./doctor_report.ts";
import { type ServerState, serverText } from "./doctor_server.ts";

const CHECK = "port";

/** One socket a listener takes. */
export interface Binding {
  /** The setting that names it: "listeners.dns[0].address". */
  setting: string;
  transport: "tcp" | "udp";
  address: string;
}

/** Every socket `kudurru serve` binds for `listeners`. */
export function bindingsOf(listeners: Config["listeners"]): Binding[] {
  const out: Binding[] = [];
  listeners.dns.forEach((d, i) => {
    for (const transport of new Set(d.protocols)) {
      out.push({
        setting: `listeners.dns[${i}].address`,
        transport,
        address: d.address,
      });
    }
  });
  listeners.dot.forEach((d, i) =>
    out.push({
      setting: `listeners.dot[${i}].address`,
      transport: "tcp",
      address: d.address,
    })
  );
  listeners.doh.forEach((d, i) =>
    out.push({
      setting: `listeners.doh[${i}].address`,
      transport: "tcp",
      address: d.address,
    })
  );
  listeners.doq.forEach((d, i) =>
    out.push({
      setting: `listeners.doq[${i}].address`,
      transport: "udp",
      address: d.address,
    })
  );
  for (const name of ["api", "ops", "metrics"] as const) {
    out.push({
      setting: `listeners.${name}.address`,
      transport: "tcp",
      address: listeners[name].address,
    });
  }
  return out;
}

/** "[::1]:53" → { hostname: "::1", port: 53 }. */
export function splitAddress(
  address: string,
): { hostname: string; port: number } {
  const at = address.lastIndexOf(":");
  return {
    hostname: address.slice(0, at).replace(/^\[|\]$/g, ""),
    port: Number(address.slice(at + 1)),
  };
}

/** The findings for every binding. */
export function checkPorts(
  bindings: readonly Binding[],
  server: ServerState,
): Finding[] {
  if (server.state === "running") {
    return bindings.map((b) =>
      ok(
        CHECK,
        `${b.transport} ${b.address} (${b.setting}): the port of ${
          serverText(server)
        }, running on this data directory`,
      )
    );
  }
  return bindings.map(checkBinding);
}

/** Binds `b` for a moment; the finding says whether serve could. */
export function checkBinding(b: Binding): Finding {
  const { hostname, port } = splitAddress(b.address);
  const what = `${b.transport} ${b.address} (${b.setting})`;
  if (port === 0) return skip(CHECK, `${what}: port 0 takes any free port`);
  try {
    if (b.transport === "tcp") {
      Deno.listen({ hostname, port, transport: "tcp" }).close();
    } else {
      Deno.listenDatagram({ hostname, port, transport: "udp" }).close();
    }
  } catch (err) {
    return fail(CHECK, `${what}: ${bindProblem(err, port)}`);
  }
  return ok(CHECK, `${what} is free`);
}

/** Why a bind failed, and what to do about it. */
export function bindProblem(err: unknown, port: number): string {
  if (err instanceof Deno.errors.AddrInUse) {
    return "in use by another process: stop it (ss -lntup shows which), or change the address";
  }
  if (err instanceof Deno.errors.PermissionDenied && port < 1024) {
    return "needs privileges (port < 1024: run as root or grant CAP_NET_BIND_SERVICE)";
  }
  if (err instanceof Deno.errors.AddrNotAvailable) {
    return "no interface of this machine has that address: fix the address, or bring the interface up first";
  }
  if (err instanceof Deno.errors.NotCapable) {
    return `this kudurru may not open network sockets (${
      messageOf(err)
    }): run it with --allow-net`;
  }
  return `Cannot bind: ${messageOf(err)}`;
}
