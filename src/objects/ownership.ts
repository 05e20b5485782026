/**
 * Who may write an object that already exists (the Store's ownership rule,
 * docs/design.md#objects-and-ownership, and the loader's takeover rules).
 * Pure decisions; the loader and apply_file act on them.
 */

/** What to do with one declared object. */
export type OwnershipDecision =
  | { action: "create" }
  | {
    action: "write";
    force: boolean;
    note?: "Adopted" | "TakenOver" | "Moved";
  }
  | { action: "refuse"; reason: "ManagedByOther" | "OwnerUnreadable" };

export interface OwnershipInput {
  /** Whether the object is stored at all. */
  exists: boolean;
  /** The stored metadata.managedBy ("" or undefined: nobody). */
  owner: string | undefined;
  /** The manager that wants to write it. */
  manager: string;
  /**
   * File-loader mode: take over bootstrap objects and objects of other files
   * (the caller has already made sure this declaration is the winning one).
   */
  takeover: boolean;
  /** Whether the owner's source is protected this pass (unreadable, unidentifiable). */
  ownerProtected?: (owner: string) => boolean;
}

export function decideOwnership(input: OwnershipInput): OwnershipDecision {
  const { exists, owner, manager, takeover } = input;
  if (!exists) return { action: "create" };
  if (owner === manager) return { action: "write", force: false };
  if (!owner) return { action: "write", force: false, note: "Adopted" };
  // The first boot's defaults are there to be changed: a file that
  // declares them takes them over, and so does a write through the API
  // (`kudurru apply -f`, as the HTTP API does).
  if (owner === "bootstrap" && (takeover || manager === "api")) {
    return { action: "write", force: true, note: "TakenOver" };
  }
  if (takeover && owner.startsWith("file:")) {
    if (input.ownerProtected?.(owner)) {
      return { action: "refuse", reason: "OwnerUnreadable" };
    }
    return { action: "write", force: true, note: "Moved" };
  }
  return { action: "refuse", reason: "ManagedByOther" };
}

/** What the operator can do when `owner` holds an object `source` declares. */
export function ownerHint(
  owner: string,
  object: string,
  source: string,
): string {
  if (owner === "api") {
    return `${object} was created through the API or the UI; delete it there so that ${source} can manage it, or remove the document from ${source}`;
  }
  if (owner === "system") {
    return `kudurru manages ${object} itself; remove the document from ${source}`;
  }
  if (owner.startsWith("integration:")) {
    return `the integration "${
      owner.slice("integration:".length)
    }" manages ${object}; remove the document from ${source} or change the integration`;
  }
  if (owner === "bootstrap") {
    return `${object} was created at first boot; declare it in a file to take it over, or edit it through the API`;
  }
  if (owner.startsWith("file:")) {
    return `${object} is declared in ${
      owner.slice("file:".length)
    }; edit that file instead`;
  }
  return `remove the document from ${source}`;
}

/** The hint for an object whose owning file cannot be read this pass. */
export function ownerUnreadableHint(owner: string, object: string): string {
  return `${object} stays as ${
    owner.slice("file:".length)
  } last declared it until that file can be read again`;
}
