/**
 * A plain text table: a header and rows, columns padded to their widest
 * cell, three spaces apart, no trailing blanks. What describe and zones
 * print, so they line up the way `get` does.
 */
export function renderTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length))
  );
  const line = (cells: string[]) =>
    cells.map((c, i) => c.padEnd(widths[i]!)).join("   ").trimEnd();
  return [line(header), ...rows.map(line)].join("\n") + "\n";
}
