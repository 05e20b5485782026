/**
 * The importers `kudurru import TOOL PATH` knows, by tool name. Each reads
 * one tool's configuration (import_result.ts says what it gives back).
 */
import type { ImportResult, ReadFile } from "./import_result.ts";

export type Importer = (
  path: string,
  readFile?: ReadFile,
) => Promise<ImportResult>;

/** What each tool's PATH is, for the usage text. */
export interface ImporterEntry {
  importer: Importer;
  reads: string;
}

export const IMPORTERS: Record<string, ImporterEntry> = {};
