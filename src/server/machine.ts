/** Facts about the machine that pick defaults (data directory, DNS port). */

export interface MachineFacts {
  isRoot: boolean;
  hostname: string;
  cwd: string;
}

export function machineFacts(): MachineFacts {
  return {
    isRoot: Deno.uid() === 0,
    hostname: safeHostname(),
    cwd: Deno.cwd(),
  };
}

function safeHostname(): string {
  try {
    return Deno.hostname();
  } catch {
    return "kudurru";
  }
}
