/**
 * Shared by the identify stage's tests: client groups and policies of a
 * small home network, and a helper that runs one query through the stage.
 */
import assert from "node:assert/strict";
import type {
  BlockingSnapshot,
  ClientGroupData,
  PolicyData,
} from "../../blocking/blocking_snapshot.ts";
import type { Request } from "../../pipeline/request.ts";
import type { Response } from "../../pipeline/response.ts";
import { requestFor, snapshotOf } from "../../testing/fixtures.ts";
import type { createIdentifyStage } from "./identify.ts";

export const DROP: Response = { drop: true, status: "dropped", stage: "chain" };

export const GROUPS: ClientGroupData[] = [
  {
    key: "kudurru/default",
    clients: [{ cidr: "0.0.0.0/0" }, { cidr: "::/0" }],
  },
  { key: "home/kids", clients: [{ cidr: "192.168.1.0/24" }] },
  { key: "home/phone", clients: [{ clientID: "phone" }] },
  { key: "home/laptops", clients: [{ hostname: "laptop-*.lan" }] },
];

export const policy = (
  key: string,
  fields: Partial<PolicyData>,
): PolicyData => ({
  key,
  priority: 0,
  groups: [],
  blockLists: [],
  allowLists: [],
  allowOnly: false,
  ...fields,
});

export const POLICIES: PolicyData[] = [
  policy("kudurru/default", {
    groups: ["kudurru/default"],
    blockLists: ["l/ads"],
  }),
  policy("home/kids", {
    groups: ["home/kids"],
    blockLists: ["l/adult"],
    priority: 5,
  }),
  policy("home/phone", { groups: ["home/phone"], blockLists: ["l/social"] }),
  policy("home/laptops", { groups: ["home/laptops"], upstreamGroup: "work" }),
];

export function blockingWith(
  groups = GROUPS,
  policies = POLICIES,
): BlockingSnapshot {
  return {
    enabled: true,
    response: { mode: "zeroIP", customIPs: [], ttl: 600 },
    lists: [],
    groups,
    policies,
  };
}

/** Runs one query through `stage` and returns the Request next saw. */
export function ask(
  stage: ReturnType<typeof createIdentifyStage>,
  blocking: BlockingSnapshot | undefined,
  address: string,
  clientId?: string,
): Request {
  const snapshot = blocking && { ...snapshotOf([]), blocking };
  const base = requestFor("example.org. A", snapshot ? { snapshot } : {});
  const req: Request = {
    ...base,
    client: {
      address,
      port: 40000,
      transport: "udp",
      ...(clientId !== undefined && { clientId }),
    },
  };
  let seen: Request | undefined;
  const res = stage.serve(req, (r) => {
    seen = r;
    return DROP;
  });
  assert.equal(res, DROP, "identify answered synchronously and passed on");
  return seen!;
}
