/**
 * The starter BlockList seeded on first boot (docs/design.md#first-boot): a
 * short list of well-known ad and tracker domains written for kudurru
 * (starter_list.txt),
 * embedded in the binary so a fresh install blocks something before any list
 * is configured. Users add real lists with their own BlockList objects.
 */
import { API_VERSION, type KObject } from "../../api/v1alpha1/meta.ts";
import starterListText from "./starter_list.txt" with { type: "text" };

/** metadata.name of the starter BlockList. */
export const STARTER_LIST_NAME = "starter";

/** The source name shown in the query log instead of "inline". */
export const STARTER_SOURCE_NAME = "kudurru starter list";

/** The embedded list text (plain domains, one per line). */
export const STARTER_LIST_TEXT: string = starterListText;

/**
 * The starter BlockList. The namespace is left empty: bootstrap puts it in
 * the namespace of the default ClientGroup and Policy.
 */
export function starterBlockList(): KObject {
  return {
    apiVersion: API_VERSION,
    kind: "BlockList",
    metadata: { name: STARTER_LIST_NAME },
    spec: {
      mode: "block",
      sources: [{
        inline: STARTER_LIST_TEXT,
        format: "domains",
        name: STARTER_SOURCE_NAME,
      }],
    },
  };
}
