/**
 * Inspects the answer section of a not-yet-encoded message (ResponseSpec
 * RRsets): the same items as the wire walk (CNAME targets, A/AAAA
 * addresses, SVCB/HTTPS targets and address hints), with names lowercased
 * and addresses brought to canonical text, since a stage may have built
 * them by hand. Anything of an unexpected shape is skipped, never thrown on.
 * As there, the first block wins, else the first allow is kept.
 */
import { parseIpv4Text, parseIpv6Text } from "../../dns/rdata_text_fields.ts";
import type { RRSet } from "../../dns/rrset.ts";
import { judgeAnswerItem, type ListHit } from "./list_checks.ts";
import type { ResolvedPolicy } from "./policy_lists.ts";

/** The first block among `answer`'s records; without one, the first allow. */
export function inspectAnswerRRSets(
  answer: readonly RRSet[] | undefined,
  policy: ResolvedPolicy,
): ListHit | undefined {
  if (!Array.isArray(answer)) return undefined;
  let allowed: ListHit | undefined;
  for (const rrset of answer) {
    const rdata = rrset?.rdata;
    if (!Array.isArray(rdata)) continue;
    for (const data of rdata) {
      const hit = inspectRdata(data, policy);
      if (hit !== undefined) {
        if (!hit.allows) return hit;
        allowed ??= hit;
      }
    }
  }
  return allowed;
}

function inspectRdata(
  data: RRSet["rdata"][number],
  policy: ResolvedPolicy,
): ListHit | undefined {
  switch (data?.type) {
    case "A":
      return address(policy, "A", parseIpv4Text(String(data.address)));
    case "AAAA":
      return address(policy, "AAAA", parseIpv6Text(String(data.address)));
    case "CNAME":
      return name(policy, "CNAME", data.target);
    case "SVCB":
    case "HTTPS": {
      const label = data.type;
      let allowed: ListHit | undefined;
      if (data.target !== ".") {
        const hit = name(policy, `${label} target`, data.target);
        if (hit !== undefined) {
          if (!hit.allows) return hit;
          allowed = hit;
        }
      }
      for (const param of data.params ?? []) {
        if (param.key !== "ipv4hint" && param.key !== "ipv6hint") continue;
        const parse = param.key === "ipv4hint" ? parseIpv4Text : parseIpv6Text;
        for (const text of param.addresses ?? []) {
          const hit = address(
            policy,
            `${label} ${param.key}`,
            parse(String(text)),
          );
          if (hit !== undefined) {
            if (!hit.allows) return hit;
            allowed ??= hit;
          }
        }
      }
      return allowed;
    }
    default:
      return undefined;
  }
}

function address(
  policy: ResolvedPolicy,
  label: string,
  text: string | null,
): ListHit | undefined {
  return text === null ? undefined : judgeAnswerItem(policy, label, text);
}

function name(
  policy: ResolvedPolicy,
  label: string,
  target: unknown,
): ListHit | undefined {
  if (typeof target !== "string" || target === "") return undefined;
  const lower = target.toLowerCase();
  // Names in RRsets are fully qualified; the matcher takes either form, the
  // rule text shows the dot like the wire walk does.
  return judgeAnswerItem(
    policy,
    label,
    lower.endsWith(".") ? lower : `${lower}.`,
  );
}
