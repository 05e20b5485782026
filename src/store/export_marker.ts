/**
 * Lines that let restore tell a complete export from a cut-off one. YAML
 * cannot: a list's inline body is a block scalar, which may end at any
 * byte, so a file cut short by a full disk (`kudurru export > file`) or a
 * dropped connection (`… | ssh host kudurru restore -`) still parses, with
 * items missing or shortened. So an export starts with a comment saying how
 * many items it holds and ends with one that only a complete file has:
 *
 * ```yaml
 * # kudurru export: 7 items, ending with the line "# end of kudurru export: 7 items"
 * apiVersion: v1
 * kind: List
 * items: …
 * # end of kudurru export: 7 items
 * ```
 *
 * Comments keep the file a plain `kind: List` for kubectl, yq and older
 * kudurru. A file without the first line (hand-written, from an older
 * kudurru, or with that line deleted to accept an edit) is not checked.
 */
import YAML from "yaml";

const MARK = "# kudurru export: ";
const FIRST_LINE =
  /^# kudurru export: (\d+) items?, ending with the line [^\n]*\n/;

function items(count: number): string {
  return `${count} item${count === 1 ? "" : "s"}`;
}

function endLine(count: number): string {
  return `# end of kudurru export: ${items(count)}`;
}

/** The first line of an export of `count` items, with its newline. */
export function exportFirstLine(count: number): string {
  return `# kudurru export: ${items(count)}, ending with the line "${
    endLine(count)
  }"\n`;
}

/** The last line of an export of `count` items, with its newline. */
export function exportLastLine(count: number): string {
  return `${endLine(count)}\n`;
}

/** `yaml` (one `kind: List` of `count` items) between the marker lines. */
export function markExport(yaml: string, count: number): string {
  const body = yaml.endsWith("\n") ? yaml : `${yaml}\n`;
  return `${exportFirstLine(count)}${body}${exportLastLine(count)}`;
}

/** Whether `text` carried the marker lines (and so was checked). */
export type ExportCheck = "complete" | "unmarked";

/**
 * Checks an export's marker lines before anything is written.
 *
 * @param what how the message names the input (`"backup.yaml"`, standard input)
 * @throws {Error} for a marked file that is cut short or was edited
 */
export function checkExport(text: string, what: string): ExportCheck {
  const head = text.trimStart();
  const cutInMark = head !== "" && MARK.startsWith(head.trimEnd());
  if (!head.startsWith(MARK) && !cutInMark) return "unmarked";
  const first = FIRST_LINE.exec(head);
  if (!first) {
    throw new Error(
      `Cannot use ${what}: it is cut short within its first line${CUT_SHORT_ADVICE}`,
    );
  }
  const expected = Number(first[1]);
  const found = countItems(text);
  const end = endLine(expected);
  if (lastLine(text) !== end) {
    throw new Error(
      `Cannot use ${what}: it is cut short: ${expected} items expected, ${found} found (the last may be incomplete), and its last line is not "${end}"${CUT_SHORT_ADVICE}`,
    );
  }
  if (found !== expected) {
    throw new Error(
      `Cannot use ${what}: its first line promises ${
        items(expected)
      }, but it holds ${found}: it was edited after the export; to use it anyway, delete its first line ("# kudurru export: …")`,
    );
  }
  return "complete";
}

const CUT_SHORT_ADVICE =
  "; it was probably written on a full disk or copied incompletely: use an earlier backup, or export again";

function lastLine(text: string): string {
  const lines = text.trimEnd().split("\n");
  return (lines[lines.length - 1] ?? "").trim();
}

/**
 * Items of every document, `kind: List` items counted one by one. Lenient:
 * a cut-off file rarely parses cleanly, and the count is for the message.
 */
function countItems(text: string): number {
  let count = 0;
  for (const doc of YAML.parseAllDocuments(text)) {
    let value: unknown;
    try {
      value = doc.toJS();
    } catch {
      continue;
    }
    if (value === null || value === undefined) continue;
    const list = value as { kind?: unknown; items?: unknown };
    count += list.kind === "List" && Array.isArray(list.items)
      ? list.items.length
      : 1;
  }
  return count;
}
