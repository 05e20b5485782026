/**
 * Turns YAML text (or already-parsed inline values) into identified objects:
 * multi-document, strict duplicate keys, `kind: List` flattened, server-populated
 * fields stripped, namespaced kinds defaulted to a namespace.
 */
import YAML from "yaml";
import {
  API_VERSION,
  formatKey,
  type KObject,
  MANAGED_BY_ANNOTATION,
  type ObjectKey,
} from "../api/v1alpha1/meta.ts";
import { findKind, KINDS } from "../api/v1alpha1/kinds.ts";
import type { Diagnosis, DiagnosisReason } from "./diagnosis.ts";
import { containsItself, CYCLIC_ALIAS } from "../config/yaml_cycles.ts";

/** One object a source declares. */
export interface DecodedObject {
  /** 1-based document number in the source. */
  document: number;
  /** Index inside a `kind: List` document. */
  item?: number;
  object: KObject;
  key: ObjectKey;
  /** formatKey(key). */
  name: string;
}

export interface DecodeResult {
  objects: DecodedObject[];
  diagnoses: Diagnosis[];
  /** Documents that could not be identified (the source is then protected). */
  unidentifiable: number;
}

export interface DecodeOptions {
  /** Namespace for namespaced kinds that name none. @default "default" */
  defaultNamespace?: string;
}

/**
 * Metadata the server populates. deletionTimestamp is stripped too: a file
 * declares objects, it cannot ask for their deletion that way.
 */
const SERVER_METADATA = [
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "managedFields",
  "managedBy",
] as const;

/** Decodes multi-document YAML text. */
export function decodeYaml(
  source: string,
  text: string,
  opts: DecodeOptions = {},
): DecodeResult {
  const result: DecodeResult = {
    objects: [],
    diagnoses: [],
    unidentifiable: 0,
  };
  const docs = YAML.parseAllDocuments(withoutDocumentBoms(text), {
    uniqueKeys: true,
  });
  if (!Array.isArray(docs)) return result; // an empty stream
  docs.forEach((doc, i) => {
    const document = i + 1;
    const err = doc.errors[0];
    if (err) {
      const line = err.linePos?.[0];
      const where = line ? `line ${line.line}, column ${line.col}: ` : "";
      const what = err.message.split("\n")[0]!.replace(
        / at line \d+, column \d+:?$/,
        "",
      );
      unidentified(result, source, document, "InvalidYAML", `${where}${what}`);
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS();
      if (containsItself(value)) throw new Error(CYCLIC_ALIAS);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      unidentified(result, source, document, "InvalidYAML", msg);
      return;
    }
    identify(result, source, document, undefined, value, opts);
  });
  return result;
}

/** A byte order mark at a line start, just before a `---` or `...` marker. */
const BOM_BEFORE_MARKER = /(^|\n)\uFEFF(?=(?:---|\.\.\.)(?:\s|$))/g;
/** A byte order mark on the line after a `---` or `...` marker line. */
const BOM_AFTER_MARKER = /((?:^|\n)(?:---|\.\.\.)(?:[ \t][^\n]*)?\r?\n)\uFEFF/g;

/**
 * YAML 1.2 allows a byte order mark at the start of every document, and
 * `cat a.yaml b.yaml` puts b.yaml's there, but the parser takes one only at
 * the start of the stream or after `...`: after `---` it became part of the
 * first key ("\uFEFFapiVersion", so "missing apiVersion").
 */
function withoutDocumentBoms(text: string): string {
  if (!text.includes("\uFEFF")) return text;
  return text.replace(BOM_BEFORE_MARKER, "$1").replace(BOM_AFTER_MARKER, "$1");
}

/** Decodes inline objects (the config file's `objects:` list): one document per item. */
export function decodeValues(
  source: string,
  values: readonly unknown[],
  opts: DecodeOptions = {},
): DecodeResult {
  const result: DecodeResult = {
    objects: [],
    diagnoses: [],
    unidentifiable: 0,
  };
  values.forEach((v, i) =>
    identify(result, source, i + 1, undefined, structuredClone(v), opts)
  );
  return result;
}

/**
 * Decodes one inline object as document `document` of `source`, as
 * decodeValues does each item: for a caller that has its objects one at a
 * time and should not hold them all decoded at once.
 */
export function decodeValue(
  source: string,
  document: number,
  value: unknown,
  opts: DecodeOptions = {},
): DecodeResult {
  const result: DecodeResult = {
    objects: [],
    diagnoses: [],
    unidentifiable: 0,
  };
  identify(result, source, document, undefined, structuredClone(value), opts);
  return result;
}

function identify(
  result: DecodeResult,
  source: string,
  document: number,
  item: number | undefined,
  value: unknown,
  opts: DecodeOptions,
): void {
  if (value === null || value === undefined) return; // empty document
  const at = item === undefined ? "" : `items[${item}]: `;
  const fail = (reason: DiagnosisReason, msg: string, hint?: string) =>
    unidentified(result, source, document, reason, at + msg, hint);
  if (!isRecord(value)) return fail("NotAnObject", "not a mapping");
  if (value.kind === "List" && item === undefined) {
    if (!Array.isArray(value.items)) {
      return fail("NotAnObject", "kind List without an items list");
    }
    value.items.forEach((v, j) =>
      identify(result, source, document, j, v, opts)
    );
    return;
  }
  if (typeof value.apiVersion !== "string" || value.apiVersion === "") {
    return fail("NotAnObject", "missing apiVersion");
  }
  if (typeof value.kind !== "string" || value.kind === "") {
    return fail("NotAnObject", "missing kind");
  }
  const metadata = value.metadata;
  // YAML reads `name: 123` as a number; kubectl refuses it too, and a
  // guessed string could differ (`0123`, `1e3`).
  for (const field of ["name", "namespace"] as const) {
    const v = isRecord(metadata) ? metadata[field] : undefined;
    if (v !== undefined && v !== null && typeof v !== "string") {
      return fail(
        "NotAnObject",
        `metadata.${field} must be a string, not ${JSON.stringify(v)}`,
        `quote it: ${field}: "${String(v)}"`,
      );
    }
  }
  if (
    !isRecord(metadata) || typeof metadata.name !== "string" ||
    metadata.name === ""
  ) {
    return fail("NotAnObject", "missing metadata.name");
  }
  const info = findKind(value.kind);
  if (!info || info.kind !== value.kind) {
    const hint = info
      ? `did you mean "${info.kind}"?`
      : `known kinds: ${KINDS.map((k) => k.kind).join(", ")}`;
    return fail("UnknownKind", `unknown kind "${value.kind}"`, hint);
  }
  if (value.apiVersion !== API_VERSION) {
    return fail(
      "UnknownKind",
      `unknown apiVersion "${value.apiVersion}" for kind "${value.kind}"`,
      `use apiVersion: ${API_VERSION}`,
    );
  }
  stripServerFields(value, metadata);
  if (info.namespaced) {
    if (typeof metadata.namespace !== "string" || metadata.namespace === "") {
      metadata.namespace = opts.defaultNamespace ?? "default";
    }
  } else {
    // kubectl ignores a namespace on cluster-scoped objects; so do we.
    delete metadata.namespace;
  }
  const object = value as unknown as KObject;
  const key = {
    kind: object.kind,
    namespace: info.namespaced ? String(metadata.namespace) : "",
    name: metadata.name,
  };
  result.objects.push({
    document,
    ...(item === undefined ? {} : { item }),
    object,
    key,
    name: formatKey(key),
  });
}

function stripServerFields(
  value: Record<string, unknown>,
  metadata: Record<string, unknown>,
): void {
  delete value.status;
  for (const f of SERVER_METADATA) delete metadata[f];
  const annotations = metadata.annotations;
  if (isRecord(annotations) && MANAGED_BY_ANNOTATION in annotations) {
    delete annotations[MANAGED_BY_ANNOTATION];
    if (Object.keys(annotations).length === 0) delete metadata.annotations;
  }
}

function unidentified(
  result: DecodeResult,
  source: string,
  document: number,
  reason: DiagnosisReason,
  msg: string,
  hint?: string,
): void {
  result.unidentifiable++;
  result.diagnoses.push({
    severity: "error",
    reason,
    source,
    document,
    message: `Cannot load "${source}": document ${document}: ${msg}`,
    ...(hint ? { hint } : {}),
  });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
