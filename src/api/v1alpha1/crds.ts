/**
 * Renders the CustomResourceDefinitions in charts/kudurru-crds from the
 * kinds' zod schemas, so the apiserver and kudurru validate the same shapes.
 * Run `deno run -A src/api/v1alpha1/crds.ts` after changing a schema;
 * crds_test.ts fails while the committed files are stale.
 */
import { join } from "node:path";
import YAML from "yaml";
import { GROUP, VERSION } from "./meta.ts";
import { type KindInfo, KINDS } from "./kinds.ts";
import {
  type CelRule,
  type SchemaNode,
  toStructuralSchema,
} from "./structural_schema.ts";

/** Where the generated files live, relative to the repository root. */
export const CRD_TEMPLATES_DIR = "charts/kudurru-crds/templates";

/** Columns for `kubectl get`, after NAME. */
interface PrinterColumn {
  name: string;
  type: "string" | "integer" | "date" | "boolean";
  jsonPath: string;
  priority?: number;
}

const READY_COLUMN: PrinterColumn = {
  name: "Ready",
  type: "string",
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
};
const AGE_COLUMN: PrinterColumn = {
  name: "Age",
  type: "date",
  jsonPath: ".metadata.creationTimestamp",
};

const PRINTER_COLUMNS: Record<string, PrinterColumn[]> = {
  DNSZone: [
    { name: "Zone", type: "string", jsonPath: ".spec.zoneName" },
    { name: "Type", type: "string", jsonPath: ".spec.type" },
    { name: "Serial", type: "integer", jsonPath: ".status.serial" },
    READY_COLUMN,
    AGE_COLUMN,
  ],
  DNSRecordSet: [
    { name: "Zone", type: "string", jsonPath: ".spec.zoneRef.name" },
    READY_COLUMN,
    AGE_COLUMN,
  ],
  BlockList: [
    { name: "Mode", type: "string", jsonPath: ".spec.mode" },
    { name: "Refresh", type: "string", jsonPath: ".spec.refreshInterval" },
    READY_COLUMN,
    AGE_COLUMN,
  ],
  ClientGroup: [READY_COLUMN, AGE_COLUMN],
  Policy: [
    { name: "Priority", type: "integer", jsonPath: ".spec.priority" },
    { name: "BlockMode", type: "string", jsonPath: ".spec.blockMode" },
    READY_COLUMN,
    AGE_COLUMN,
  ],
};

const ACL_MODES = "['useNetworkACL', 'zoneNameServersAndACL']";
const nonEmpty = (field: string) =>
  `has(self.${field}) && size(self.${field}) > 0`;

/**
 * The cross-field rules of the zod refinements, restated in CEL so the
 * apiserver enforces them without a webhook.
 */
const CEL_RULES: Record<string, Record<string, CelRule[]>> = {
  DNSZone: {
    spec: [
      {
        rule: "self.type != 'forward' || has(self.forward)",
        message: "forward is required when type is forward",
      },
      {
        rule: "self.type != 'primary' || !has(self.forward)",
        message: "forward must not be set when type is primary",
      },
    ],
    "spec.policy": [
      {
        rule: `!(self.queryAccess in ${ACL_MODES}) || (${
          nonEmpty("queryACL")
        })`,
        message: "queryACL must not be empty when queryAccess uses the ACL",
      },
      {
        rule: `!(self.zoneTransfer in ${ACL_MODES}) || (${
          nonEmpty("transferACL")
        })`,
        message: "transferACL must not be empty when zoneTransfer uses the ACL",
      },
      {
        rule: `!(self.notify in ['specified', 'both']) || (${
          nonEmpty("notifyTargets")
        })`,
        message:
          "notifyTargets must not be empty when notify is specified or both",
      },
    ],
  },
  DNSRecordSet: {
    "spec.endpoints[]": [{
      rule:
        "!(self.recordType in ['CNAME', 'DNAME']) || size(self.targets) == 1",
      message: "CNAME and DNAME endpoints must hold exactly one target",
    }],
  },
  BlockList: {
    "spec.sources[]": [{
      rule:
        "[has(self.url), has(self.inline), has(self.configMapRef)].exists_one(x, x)",
      message: "must set exactly one of url, inline, configMapRef",
    }],
    "spec.response": [{
      rule: `self.mode != 'customIP' || (${nonEmpty("customIPs")})`,
      message: "customIPs must not be empty when mode is customIP",
    }],
  },
  ClientGroup: {
    "spec.clients[]": [{
      rule:
        "[has(self.ip), has(self.cidr), has(self.mac), has(self.clientID), has(self.hostname), has(self.nameGlob)].exists_one(x, x)",
      message:
        "must set exactly one of ip, cidr, mac, clientID, hostname, nameGlob",
    }],
  },
  Policy: {
    spec: [{
      rule: `!has(self.blockMode) || self.blockMode != 'customIP' || (${
        nonEmpty("customIPs")
      })`,
      message: "customIPs must not be empty when blockMode is customIP",
    }],
  },
};

function celRulesFor(info: KindInfo): Map<string, CelRule[]> {
  const rules = new Map<string, CelRule[]>(
    Object.entries(CEL_RULES[info.kind] ?? {}),
  );
  for (const field of info.immutableFields) {
    const path = field.path.join(".");
    rules.set(path, [
      ...(rules.get(path) ?? []),
      { rule: "self == oldSelf", message: field.message },
    ]);
  }
  return rules;
}

/** The openAPIV3Schema of one kind. */
export function crdSchema(info: KindInfo): SchemaNode {
  const schema = toStructuralSchema(info.objectSchema, celRulesFor(info));
  const properties = schema.properties as Record<string, SchemaNode>;
  // The apiserver owns the envelope; metadata must stay `type: object`.
  properties.apiVersion = { type: "string" };
  properties.kind = { type: "string" };
  properties.metadata = { type: "object" };
  const required = (schema.required as string[] | undefined ?? []).filter(
    (name) => !["apiVersion", "kind", "metadata"].includes(name),
  );
  return { ...schema, required };
}

/** The CustomResourceDefinition of one kind, as a plain object. */
export function crdFor(info: KindInfo): Record<string, unknown> {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${info.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      names: {
        kind: info.kind,
        listKind: `${info.kind}List`,
        plural: info.plural,
        singular: info.singular,
        shortNames: info.shortNames,
        categories: ["kudurru"],
      },
      scope: info.namespaced ? "Namespaced" : "Cluster",
      versions: [{
        name: VERSION,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: PRINTER_COLUMNS[info.kind] ?? [AGE_COLUMN],
        schema: { openAPIV3Schema: crdSchema(info) },
      }],
    },
  };
}

const HEADER =
  "# Generated by src/api/v1alpha1/crds.ts from the zod schemas; do not edit.\n" +
  "# Regenerate with: deno run -A src/api/v1alpha1/crds.ts\n";

/** CRD file name (in CRD_TEMPLATES_DIR) → YAML text, one per kind. */
export function renderCrds(): Map<string, string> {
  return new Map(
    KINDS.map((info) => [
      `${GROUP}_${info.plural}.yaml`,
      HEADER + YAML.stringify(crdFor(info), { lineWidth: 0 }),
    ]),
  );
}

if (import.meta.main) {
  const dir = join(import.meta.dirname ?? ".", "../../..", CRD_TEMPLATES_DIR);
  Deno.mkdirSync(dir, { recursive: true });
  for (const [name, text] of renderCrds()) {
    Deno.writeTextFileSync(join(dir, name), text);
  }
}
