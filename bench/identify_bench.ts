/**
 * The identify stage's per-query cost on a memo hit (the common case):
 * it must stay far below a microsecond and allocate nothing.
 */
import type { Request } from "../src/pipeline/request.ts";
import type { Response } from "../src/pipeline/response.ts";
import { requestFor, snapshotOf } from "../src/testing/fixtures.ts";
import { createIdentifyStage } from "../src/stages/identify/identify.ts";

const DROP: Response = { drop: true, status: "dropped", stage: "chain" };
const next = () => DROP;

function requests(schedule: boolean, clientId?: string): Request[] {
  const snapshot = {
    ...snapshotOf([]),
    blocking: {
      enabled: true,
      response: { mode: "zeroIP" as const, customIPs: [], ttl: 600 },
      lists: [],
      groups: [
        { key: "k/default", clients: [{ cidr: "0.0.0.0/0" }] },
        { key: "k/kids", clients: [{ cidr: "192.168.1.0/24" }] },
      ],
      policies: [{
        key: "k/kids",
        priority: 0,
        groups: ["k/kids"],
        blockLists: ["l/ads"],
        allowLists: [],
        allowOnly: false,
        ...(schedule && { schedule: { start: "08:00", end: "20:00" } }),
      }],
    },
  };
  return Array.from({ length: 64 }, (_, i) => ({
    ...requestFor("example.org. A", { snapshot }),
    received: Date.now(),
    client: {
      address: `192.168.1.${i}`,
      port: 40000,
      transport: "udp" as const,
      ...(clientId !== undefined && { clientId }),
    },
  }));
}

for (
  const [name, reqs] of [
    ["memo hit", requests(false)],
    ["memo hit, with schedules", requests(true)],
    ["memo hit, with a client ID", requests(false, "phone")],
  ] as const
) {
  const stage = createIdentifyStage();
  let i = 0;
  Deno.bench(`identify: ${name}`, () => {
    stage.serve(reqs[i++ & 63]!, next);
  });
}
