/** Table-test helpers shared by the kinds' tests. */
import assert from "node:assert/strict";
import { type FieldIssue, validateObject } from "../validate.ts";
import type { KObject } from "../meta.ts";

/** One invalid input and the issue it must produce. */
export interface InvalidCase {
  name: string;
  input: unknown;
  path: string;
  /** The exact message, or a pattern for messages written by src/dns. */
  message: string | RegExp;
}

/** The object validateObject returns; fails the test when it is invalid. */
export function mustValidate(input: unknown): KObject {
  const result = validateObject(input);
  if (!result.ok) {
    assert.fail(
      `expected a valid object, got ${JSON.stringify(result.issues)}`,
    );
  }
  return result.object;
}

/** Asserts validateObject rejects the input with the case's issue among its issues. */
export function assertIssue(c: InvalidCase): void {
  const result = validateObject(c.input);
  assert.equal(result.ok, false, `${c.name}: expected an issue at ${c.path}`);
  const issues: FieldIssue[] = result.ok ? [] : result.issues;
  const atPath = issues.filter((i) => i.path === c.path);
  assert.ok(
    atPath.length > 0,
    `${c.name}: no issue at ${c.path}; got ${JSON.stringify(issues)}`,
  );
  assert.ok(
    atPath.some((i) =>
      typeof c.message === "string"
        ? i.message === c.message
        : c.message.test(i.message)
    ),
    `${c.name}: message at ${c.path} is ${
      JSON.stringify(atPath)
    }, want ${c.message}`,
  );
}

/** A copy of base with some spec fields replaced. */
export function withSpec(
  base: Record<string, unknown>,
  spec: Record<string, unknown>,
): Record<string, unknown> {
  return {
    ...base,
    spec: { ...(base.spec as Record<string, unknown>), ...spec },
  };
}
