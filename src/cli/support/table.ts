/** Plain-text tables for command output: columns padded to their widest cell. */
export function formatTable(rows: readonly (readonly string[])[], rightAligned: ReadonlySet<number> = new Set()): string {
  const widths: number[] = [];
  rows.forEach((cells) => cells.forEach((cell, i) => { widths[i] = Math.max(widths[i] ?? 0, cell.length); }));
  const line = (cells: readonly string[]): string => cells
    .map((cell, i) => (rightAligned.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
    .join('  ').trimEnd();
  return rows.map(line).join('\n') + '\n';
}
