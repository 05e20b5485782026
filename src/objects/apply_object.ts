/**
 * Applies one declared object under the ownership rules, recording its outcome
 * and any diagnosis. Shared by the loader and `kudurru apply -f`.
 */
import { type KObject, MANAGED_BY_ANNOTATION } from "../api/v1alpha1/meta.ts";
import {
  sameContent,
  validateObject,
  type Validation,
} from "../api/v1alpha1/validate.ts";
import {
  InvalidObjectError,
  ManagedByError,
  type Store,
} from "../store/store.ts";
import type { Logger } from "../log/logger.ts";
import type { DecodedObject } from "./decode.ts";
import {
  decideOwnership,
  ownerHint,
  ownerUnreadableHint,
} from "./ownership.ts";
import type { ApplyResult, ReportBuilder } from "./report.ts";

export interface ApplyDeclaredInput {
  store: Store;
  decoded: DecodedObject;
  source: string;
  manager: string;
  /** The stored object, undefined when absent. */
  stored: KObject | undefined;
  /** File-loader takeover rules (bootstrap, other files); false for apply -f. */
  takeover: boolean;
  ownerProtected?: (owner: string) => boolean;
  /** Who asked, for the audit row. */
  actor: string;
  /** @default validateObject */
  validate?: ValidateFn;
  logger?: Logger;
}

/** validateObject's shape; tests pass a counting wrapper. */
export type ValidateFn = (input: unknown, old?: KObject) => Validation;

/** What applyDeclared did; object is what the store holds afterwards (when known). */
export interface ApplyDeclaredResult {
  result: ApplyResult;
  object: KObject | undefined;
}

/** Applies one object; never throws. */
export async function applyDeclared(
  input: ApplyDeclaredInput,
  report: ReportBuilder,
): Promise<ApplyDeclaredResult> {
  const { decoded, source, manager, stored } = input;
  const at = { source, document: decoded.document, object: decoded.name };
  const owner = stored?.metadata.managedBy ?? "";
  const decision = decideOwnership({
    exists: stored !== undefined,
    owner,
    manager,
    takeover: input.takeover,
    ...(input.ownerProtected ? { ownerProtected: input.ownerProtected } : {}),
  });
  if (decision.action === "refuse") {
    const unreadable = decision.reason === "OwnerUnreadable";
    report.diagnose({
      severity: unreadable ? "warning" : "error",
      reason: decision.reason,
      ...at,
      owner,
      message: unreadable
        ? `Cannot take over ${decoded.name} for "${source}": its owner ${owner} could not be read this pass`
        : `Cannot apply ${decoded.name} from "${source}": it is managed by ${owner}`,
      hint: unreadable
        ? ownerUnreadableHint(owner, decoded.name)
        : ownerHint(owner, decoded.name, source),
    });
    report.outcome({ ...at, result: "conflict" });
    return { result: "conflict", object: stored };
  }
  const validate = input.validate ?? validateObject;
  const checked = stored === undefined
    ? validate(decoded.object)
    : validate(decoded.object, stored);
  if (!checked.ok) {
    invalid(report, at, source, decoded.name, checked.issues);
    return { result: "invalid", object: stored };
  }
  if (
    stored && owner === manager &&
    sameContent(checked.object, withoutOwnerAnnotation(stored))
  ) {
    report.outcome({ ...at, result: "unchanged" });
    return { result: "unchanged", object: stored };
  }
  try {
    const written = await input.store.apply(checked.object, {
      manager,
      ...(decision.action === "write" && decision.force ? { force: true } : {}),
      actor: input.actor,
    });
    const result: ApplyResult = stored === undefined ? "created" : "updated";
    report.outcome({ ...at, result });
    if (decision.action === "write" && decision.note) {
      report.diagnose({
        severity: "info",
        reason: decision.note,
        ...at,
        owner,
        message: noteMessage(decision.note, decoded.name, source, owner),
      });
    }
    input.logger?.info("Applied file-managed object", {
      ...at,
      result,
      manager,
    });
    return { result, object: written };
  } catch (e) {
    return {
      result: failed(report, at, source, decoded.name, e),
      object: stored,
    };
  }
}

type At = { source: string; document: number; object: string };

function invalid(
  report: ReportBuilder,
  at: At,
  source: string,
  name: string,
  issues: { path: string; message: string }[],
): void {
  report.diagnose({
    severity: "error",
    reason: "Invalid",
    ...at,
    fields: issues.map((i) => i.path),
    message: `Cannot apply ${name} from "${source}" document ${at.document}: ${
      issues.map((i) => `${i.path}: ${i.message}`).join("; ")
    }`,
    hint:
      "the stored object, if any, stays as it is until the document is fixed",
  });
  report.outcome({ ...at, result: "invalid" });
}

function failed(
  report: ReportBuilder,
  at: At,
  source: string,
  name: string,
  e: unknown,
): ApplyResult {
  if (e instanceof ManagedByError) {
    report.diagnose({
      severity: "error",
      reason: "ManagedByOther",
      ...at,
      owner: e.owner,
      message:
        `Cannot apply ${name} from "${source}": it is managed by ${e.owner}`,
      hint: ownerHint(e.owner, name, source),
    });
    report.outcome({ ...at, result: "conflict" });
    return "conflict";
  }
  if (e instanceof InvalidObjectError) {
    invalid(report, at, source, name, e.issues);
    return "invalid";
  }
  report.diagnose({
    severity: "error",
    reason: "ApplyFailed",
    ...at,
    message: `Cannot apply ${name} from "${source}": ${
      e instanceof Error ? e.message : String(e)
    }`,
  });
  report.outcome({ ...at, result: "error" });
  return "error";
}

function noteMessage(
  note: "Adopted" | "TakenOver" | "Moved",
  name: string,
  source: string,
  owner: string,
): string {
  switch (note) {
    case "Adopted":
      return `Adopted ${name}: it had no manager and is now managed by "${source}"`;
    case "TakenOver":
      return `Took over ${name} from the first-boot defaults (${owner}); "${source}" manages it now`;
    case "Moved":
      return `Moved ${name} from ${owner.slice("file:".length)} to "${source}"`;
  }
}

/** The kube driver mirrors managedBy into an annotation; files never carry it. */
export function withoutOwnerAnnotation(obj: KObject): KObject {
  const annotations = obj.metadata.annotations;
  if (!annotations || !(MANAGED_BY_ANNOTATION in annotations)) return obj;
  const { [MANAGED_BY_ANNOTATION]: _, ...rest } = annotations;
  const metadata = { ...obj.metadata, annotations: rest };
  return { ...obj, metadata };
}
