/**
 * Rebuilds a rule's text the way its list wrote it, from its syntax, role
 * and pattern, so "why was this blocked" can quote it ("||ads.example^",
 * "0.0.0.0 ads.example", "@@/ads[0-9]+/"). Only called on a match: the
 * matcher stores no rule text at all.
 */

import {
  ROLE_EXCEPTION,
  ROLE_EXCEPTION_IMPORTANT,
  ROLE_IMPORTANT,
} from "./layout.ts";

/** The text of a rule with syntax code `syntax` (layout.ts), `role` and `pattern`. */
export function ruleText(
  syntax: number,
  role: number,
  pattern: string,
): string {
  let text: string;
  switch (syntax) {
    case 2:
      text = "0.0.0.0 " + pattern;
      break;
    case 3:
      text = "||" + pattern + "^";
      break;
    case 4:
      text = "*." + pattern;
      break;
    case 5:
      text = "/" + pattern + "/";
      break;
    default:
      text = pattern;
  }
  if (role === ROLE_EXCEPTION || role === ROLE_EXCEPTION_IMPORTANT) {
    text = "@@" + text;
  }
  if (role === ROLE_IMPORTANT || role === ROLE_EXCEPTION_IMPORTANT) {
    text += "$important";
  }
  return text;
}
