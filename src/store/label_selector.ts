/**
 * Kubernetes label selectors, the string form `kubectl -l` accepts:
 * `a=b`, `a==b`, `a!=b`, `a`, `!a`, `a in (x,y)`, `a notin (x)`, joined by commas.
 * Every requirement must hold (AND), as in Kubernetes.
 */

/** One clause of a selector. */
export type LabelRequirement =
  | { op: "exists"; key: string }
  | { op: "notExists"; key: string }
  | { op: "in"; key: string; values: string[] }
  | { op: "notIn"; key: string; values: string[] };

/** A selector string that does not parse (HTTP 400). */
export class LabelSelectorError extends Error {
  constructor(readonly selector: string, reason: string) {
    super(`Cannot parse label selector "${selector}": ${reason}`);
    this.name = "LabelSelectorError";
  }
}

// Label keys may carry a DNS-subdomain prefix (`kudurru.io/zone`); values are
// at most 63 characters of alphanumerics, '-', '_' and '.', or empty.
const KEY_RE =
  /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE_RE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** Splits on commas that are not inside a `( … )` value set. */
function splitClauses(selector: string): string[] {
  const clauses: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      clauses.push(selector.slice(start, i));
      start = i + 1;
    }
    if (depth < 0 || depth > 1) {
      throw new LabelSelectorError(selector, "unbalanced parentheses");
    }
  }
  if (depth !== 0) {
    throw new LabelSelectorError(selector, "unbalanced parentheses");
  }
  clauses.push(selector.slice(start));
  return clauses;
}

function checkKey(selector: string, key: string): string {
  if (!KEY_RE.test(key) || key.length > 317) {
    throw new LabelSelectorError(selector, `invalid label key "${key}"`);
  }
  return key;
}

function checkValue(selector: string, value: string): string {
  if (!VALUE_RE.test(value) || value.length > 63) {
    throw new LabelSelectorError(selector, `invalid label value "${value}"`);
  }
  return value;
}

function parseClause(selector: string, raw: string): LabelRequirement {
  const clause = raw.trim();
  if (clause === "") {
    throw new LabelSelectorError(selector, "empty requirement");
  }
  const set = /^(\S+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(clause);
  if (set) {
    const key = checkKey(selector, set[1]!);
    const values = set[3]!.split(",").map((v) =>
      checkValue(selector, v.trim())
    );
    return { op: set[2] === "in" ? "in" : "notIn", key, values };
  }
  const cmp = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(clause);
  if (cmp) {
    const key = checkKey(selector, cmp[1]!);
    const value = checkValue(selector, cmp[3]!);
    return { op: cmp[2] === "!=" ? "notIn" : "in", key, values: [value] };
  }
  if (clause.startsWith("!")) {
    return { op: "notExists", key: checkKey(selector, clause.slice(1).trim()) };
  }
  if (/[\s=!()]/.test(clause)) {
    throw new LabelSelectorError(selector, `unexpected "${clause}"`);
  }
  return { op: "exists", key: checkKey(selector, clause) };
}

/** Parses a selector; the empty string selects everything. Throws LabelSelectorError. */
export function parseLabelSelector(selector: string): LabelRequirement[] {
  if (selector.trim() === "") return [];
  return splitClauses(selector).map((c) => parseClause(selector, c));
}

/** Whether labels satisfy every requirement. */
export function matchesLabels(
  requirements: readonly LabelRequirement[],
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  const present = labels ?? {};
  return requirements.every((r) => {
    const has = Object.hasOwn(present, r.key);
    switch (r.op) {
      case "exists":
        return has;
      case "notExists":
        return !has;
      case "in":
        return has && r.values.includes(present[r.key]!);
      case "notIn":
        // As in Kubernetes, `a!=b` and `a notin (b)` also match objects without `a`.
        return !has || !r.values.includes(present[r.key]!);
    }
  });
}
