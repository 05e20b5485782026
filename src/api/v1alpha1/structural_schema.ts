/**
 * Turns a zod schema into a Kubernetes structural OpenAPI v3 schema, the
 * form a CustomResourceDefinition needs: every node typed, no $ref, no
 * anyOf/oneOf with types, unknown fields pruned rather than rejected.
 */
import { z } from "zod";

/** A JSON Schema node as z.toJSONSchema writes it. */
export type SchemaNode = Record<string, unknown>;

/** A CEL rule for x-kubernetes-validations. */
export interface CelRule {
  rule: string;
  message: string;
}

/** Formats the apiserver checks; zod's others (e.g. "email") are dropped. */
const KUBERNETES_FORMATS = new Set(["date-time", "int32", "int64", "byte"]);

/** Go's regexp (RE2) has no lookaround and no backreferences. */
const NOT_RE2 = /\(\?[=!<]|\\[1-9]/;

/** Keys that carry no meaning for a structural schema. */
const DROPPED_KEYS = new Set([
  "$schema",
  "$defs",
  "$id",
  "id",
  "propertyNames",
]);

/**
 * The structural schema of a zod schema, input side (so fields with defaults
 * are optional and carry `default`). `rules` adds CEL rules by dotted path
 * ("spec", "spec.zoneName", "spec.sources[]" for every item of a list).
 */
export function toStructuralSchema(
  schema: z.ZodType,
  rules: ReadonlyMap<string, readonly CelRule[]> = new Map(),
): SchemaNode {
  const json = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    reused: "inline",
    cycles: "throw",
  }) as SchemaNode;
  const defs = (json.$defs ?? {}) as Record<string, SchemaNode>;
  const used = new Set<string>();
  const out = convert(json, "", { defs, rules, used });
  const unused = [...rules.keys()].filter((path) => !used.has(path));
  if (unused.length > 0) {
    throw new Error(
      `Cannot render structural schema: CEL rules for unknown paths ${
        unused.join(", ")
      }`,
    );
  }
  return out;
}

interface Context {
  defs: Record<string, SchemaNode>;
  rules: ReadonlyMap<string, readonly CelRule[]>;
  used: Set<string>;
}

function convert(node: SchemaNode, path: string, ctx: Context): SchemaNode {
  const resolved = resolveRef(node, path, ctx);
  const out: SchemaNode = {};
  for (const [key, value] of Object.entries(resolved)) {
    if (DROPPED_KEYS.has(key)) continue;
    switch (key) {
      case "anyOf":
      case "oneOf":
      case "allOf":
      case "not":
        throw new Error(
          `Cannot render structural schema at "${
            path || "."
          }": ${key} is not structural; use one object with a refinement instead`,
        );
      case "type":
        if (typeof value !== "string") {
          throw new Error(
            `Cannot render structural schema at "${path || "."}": type ${
              JSON.stringify(value)
            } is not structural; every node needs exactly one type`,
          );
        }
        out.type = value;
        break;
      case "const":
        out.enum = [value];
        break;
      case "additionalProperties":
        if (value !== false) {
          out.additionalProperties = convert(
            value as SchemaNode,
            `${path}{}`,
            ctx,
          );
        }
        break;
      case "properties":
        out.properties = Object.fromEntries(
          Object.entries(value as Record<string, SchemaNode>).map((
            [name, child],
          ) => [name, convert(child, path ? `${path}.${name}` : name, ctx)]),
        );
        break;
      case "items":
        out.items = convert(value as SchemaNode, `${path}[]`, ctx);
        break;
      case "minimum":
      case "maximum":
        if (Math.abs(value as number) !== Number.MAX_SAFE_INTEGER) {
          out[key] = value;
        }
        break;
      case "exclusiveMinimum":
      case "exclusiveMaximum":
        // OpenAPI v3.0 (what CRDs use) spells these as a bound plus a flag.
        out[key === "exclusiveMinimum" ? "minimum" : "maximum"] = value;
        out[key] = true;
        break;
      case "pattern":
        if (!NOT_RE2.test(value as string)) out.pattern = value;
        break;
      case "format":
        if (KUBERNETES_FORMATS.has(value as string)) out.format = value;
        break;
      default:
        out[key] = value;
    }
  }
  if (out.type === undefined && out.enum === undefined) {
    out["x-kubernetes-preserve-unknown-fields"] = true;
  }
  const rules = ctx.rules.get(path);
  if (rules !== undefined) {
    ctx.used.add(path);
    out["x-kubernetes-validations"] = rules.map((r) => ({ ...r }));
  }
  checkListBounds(out, path);
  // `type` first reads best in the generated YAML.
  return out.type === undefined ? out : { type: out.type, ...out };
}

function resolveRef(node: SchemaNode, path: string, ctx: Context): SchemaNode {
  const ref = node.$ref;
  if (typeof ref !== "string") return node;
  const name = ref.replace(/^#\/\$defs\//, "");
  const target = ctx.defs[name];
  if (target === undefined) {
    throw new Error(
      `Cannot render structural schema at "${path}": unresolved ${ref}`,
    );
  }
  const { $ref: _, ...rest } = node;
  return { ...resolveRef(target, path, ctx), ...rest };
}

/**
 * The apiserver estimates CEL cost from list sizes; a list whose items
 * carry rules must be bounded or the CRD is rejected.
 */
function checkListBounds(node: SchemaNode, path: string): void {
  if (node.type !== "array" || node.maxItems !== undefined) return;
  if (JSON.stringify(node.items ?? {}).includes("x-kubernetes-validations")) {
    throw new Error(
      `Cannot render structural schema at "${path}": a list whose items carry CEL rules needs maxItems`,
    );
  }
}
