/**
 * Rejects regular expressions that can backtrack catastrophically: a
 * quantified group whose body repeats something that can split the same
 * text in many ways, such as `(a+)+`, `(x*)*` or `(a+a)+`. JavaScript's
 * engine backtracks, so one such rule matched against a 253-character name
 * a client chose could hold a worker for seconds per query.
 *
 * A group like `([a-z0-9-]+\.)+` stays allowed: its body holds a literal
 * (`.`) that none of its repeated parts can match, so each repetition ends
 * at a known place and there is only one way to split a name.
 */

/** What is wrong with `source`, or null when it is safe to run per query. */
export function backtrackingRisk(source: string): string | null {
  /** Start index and "holds a quantifier" of each open group. */
  const open: { start: number; quantified: boolean }[] = [];
  let closed: { start: number; end: number; quantified: boolean } | null = null;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\" || c === "[") {
      i = c === "\\" ? i + 1 : classEnd(source, i);
      closed = null;
      continue;
    }
    if (c === "(") {
      open.push({ start: i, quantified: false });
      closed = null;
      continue;
    }
    if (c === ")") {
      const group = open.pop();
      if (group === undefined) return null; // RegExp already refused it
      closed = { start: group.start, end: i, quantified: group.quantified };
      const parent = open.at(-1);
      if (parent && group.quantified) parent.quantified = true;
      continue;
    }
    if (isQuantifier(source, i)) {
      if (
        closed?.quantified &&
        !hasSeparator(source.slice(closed.start + 1, closed.end))
      ) {
        return "a repeated group repeats a quantifier with nothing to tell the repetitions apart (it could backtrack catastrophically)";
      }
      const parent = open.at(-1);
      if (parent) parent.quantified = true;
    }
    closed = null;
  }
  return null;
}

/** An atom of a group body: its source and whether a quantifier follows it. */
interface Atom {
  source: string;
  quantified: boolean;
}

/**
 * True when `body` (a group's inside) holds a single-character literal that
 * is not repeated and that none of its repeated atoms can match.
 */
function hasSeparator(body: string): boolean {
  const atoms = topLevelAtoms(body);
  if (atoms === undefined) return false;
  const repeated = atoms.filter((a) => a.quantified).map((a) => {
    try {
      return new RegExp(`^(?:${a.source})$`);
    } catch {
      return /[\s\S]/; // unknown: assume it matches anything
    }
  });
  return atoms.some((a) => {
    if (a.quantified) return false;
    const literal = literalChar(a.source);
    return literal !== undefined && repeated.every((r) => !r.test(literal));
  });
}

/** The body split into atoms; undefined when it has alternatives (`|`). */
function topLevelAtoms(body: string): Atom[] | undefined {
  const atoms: Atom[] = [];
  for (let i = 0; i < body.length;) {
    const c = body[i]!;
    if (c === "|") return undefined;
    let end: number;
    if (c === "\\") end = i + 2;
    else if (c === "[") end = classEnd(body, i) + 1;
    else if (c === "(") end = groupEnd(body, i) + 1;
    else end = i + 1;
    let next = end;
    while (next < body.length && isQuantifier(body, next)) {
      next = body[next] === "{" ? body.indexOf("}", next) + 1 : next + 1;
    }
    atoms.push({ source: body.slice(i, end), quantified: next > end });
    i = next;
  }
  return atoms;
}

/** The character a one-character literal atom stands for, if it is one. */
function literalChar(atom: string): string | undefined {
  if (atom.length === 1 && !".^$".includes(atom)) return atom;
  if (atom.length === 2 && atom[0] === "\\" && !/[a-zA-Z0-9]/.test(atom[1]!)) {
    return atom[1]; // \. \- \/ …
  }
  return undefined;
}

/** `*`, `+`, `?` after something, or a `{n}` / `{n,}` / `{n,m}` counter. */
function isQuantifier(source: string, i: number): boolean {
  const c = source[i];
  if (c === "*" || c === "+") return true;
  // `?` right after `(` opens a group kind (`(?:`), not a quantifier.
  if (c === "?") return i > 0 && source[i - 1] !== "(";
  return c === "{" && /^\{\d+(,\d*)?\}/.test(source.slice(i, i + 12));
}

/** The index of the `]` closing the class opened at `start`. */
function classEnd(source: string, start: number): number {
  for (let i = start + 1; i < source.length; i++) {
    if (source[i] === "\\") i++;
    else if (source[i] === "]" && i > start + 1) return i;
  }
  return source.length;
}

/** The index of the `)` closing the group opened at `start`. */
function groupEnd(source: string, start: number): number {
  let depth = 0;
  for (let i = start; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "[") i = classEnd(source, i);
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return source.length;
}
