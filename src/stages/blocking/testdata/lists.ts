/**
 * The lists of the stage's table tests, as metadata plus rules, so a test
 * can compile them with the real matcher or with the test double.
 */
import type { RuleInput } from "../../../blocking/types.ts";
import type { ListMeta } from "./set_matcher.ts";
import { rules } from "./fixtures.ts";

export interface TestList {
  meta: ListMeta;
  rules: RuleInput[];
}

export const TEST_LISTS: TestList[] = [
  {
    meta: { key: "dns/ads", name: "Ads", mode: "block" },
    rules: rules(
      "||ads.example^",
      "@@||ok.ads.example^",
      "||tracker.example^$important",
      "@@||tracker.example^",
      "@@||free.example^",
      "||free.example^",
      // No rule of this list blocks it: the exception allowlists on its own.
      "@@||unbreak.example^",
    ),
  },
  {
    meta: { key: "dns/trackers", name: "Trackers", mode: "block" },
    rules: rules(
      "||ads.example^",
      "||metrics.example^",
      "||cdn-track.example^",
      "||imp.example^",
    ),
  },
  {
    // Exceptions only, the way to unbreak a site (AdGuard Home's `@@`).
    meta: { key: "dns/fixes", name: "Fixes", mode: "block" },
    rules: rules("@@||cloak.site.example^", "@@||metrics.example^"),
  },
  {
    meta: { key: "dns/family-allow", name: "Family allow", mode: "allow" },
    rules: rules("||good.ads.example^", "||fine-cdn.example^", "192.0.2.77"),
  },
  {
    // Mode block, but referenced as an allow list: its rules allow.
    meta: { key: "dns/inline-allow", name: "Inline allow", mode: "block" },
    rules: rules("ref.ads.example", "||metrics.example^", "@@||imp.example^"),
  },
  {
    meta: {
      key: "dns/strict",
      name: "Strict",
      mode: "block",
      response: { mode: "nxdomain", customIPs: [] },
    },
    rules: rules("||strict.example^"),
  },
  {
    meta: {
      key: "dns/custom",
      name: "Custom",
      mode: "block",
      response: {
        mode: "customIP",
        customIPs: ["192.0.2.99", "192.0.2.98", "2001:db8::99"],
      },
    },
    rules: rules("||custom.example^"),
  },
  {
    meta: {
      key: "dns/custom-v4",
      name: "Custom v4",
      mode: "block",
      response: { mode: "customIP", customIPs: ["192.0.2.99"] },
    },
    rules: rules("||custom4.example^"),
  },
  {
    meta: { key: "dns/ips", name: "Bad addresses", mode: "block" },
    rules: rules(
      "192.0.2.66",
      "2001:db8::66",
      "||cname-tracker.example^",
      "@@||ok.cname-tracker.example^",
    ),
  },
];
