import type { Cell, Line, Segment } from './pdf-lines.js';

/**
 * Tables in a PDF's layout: lines whose cells stand in the same columns. PDFs keep no table structure in
 * their text (untagged ones at least), so columns are found the way a reader finds them: two or more runs of
 * text per line, each under the one above. Rows come from the baselines: lines closer together than the rows
 * are apart are text wrapped inside a cell, whatever order the PDF wrote them in.
 */

interface Column {
  left: number;
  right: number;
}

interface Fragment {
  y: number;
  column: number;
  line: number;
  segments: Segment[];
}

export interface PdfTable {
  /** Index of the line after the table. */
  end: number;
  rows: Segment[][][];
}

/** A table's cells stay short: longer runs side by side are columns of prose, not of a table. */
const MAX_MEAN_CELL_CHARS = 40;
/** Lines one table takes at most, so that finding tables stays linear in a page's lines; a longer one goes on as the next table. */
const MAX_TABLE_LINES = 500;

const textOf = (segments: Segment[]): string => segments.map((s) => s.text).join('');

/** The column each cell falls under (by overlap), or null when a cell spans two or falls under none. */
function columnsOf(cells: Cell[], columns: Column[], slack: number): number[] | null {
  const at: number[] = [];
  for (const cell of cells) {
    const under = columns.flatMap((c, i) =>
      cell.left <= c.right + slack && cell.right >= c.left - slack ? [i] : [],
    );
    if (under.length !== 1 || (at.length > 0 && under[0]! <= at.at(-1)!)) return null;
    at.push(under[0]!);
  }
  return at;
}

/**
 * Fragments grouped into rows by baseline. When the gaps between baselines differ, the smallest is the line
 * spacing inside a cell and a clearly larger one starts a row; when they are all alike, each baseline is a row.
 */
function rowsOf(fragments: Fragment[], size: number): Fragment[][] {
  const sorted = [...fragments].sort((a, b) => b.y - a.y || a.line - b.line);
  // Gaps within a column only: a short cell beside a wrapped one is centred between its lines.
  const gaps: number[] = [];
  const lastIn = new Map<number, number>();
  for (const f of sorted) {
    const above = lastIn.get(f.column);
    if (above !== undefined && above - f.y > size * 0.3) gaps.push(above - f.y);
    lastIn.set(f.column, f.y);
  }
  const lineGap = Math.min(...gaps);
  const rowGap = Math.max(...gaps) > lineGap * 1.25 ? lineGap * 1.25 : lineGap * 0.5;
  const rows: Fragment[][] = [];
  let last: Fragment | null = null;
  for (const fragment of sorted) {
    if (!last || last.y - fragment.y > Math.max(rowGap, size * 0.3)) rows.push([]);
    rows.at(-1)!.push(fragment);
    last = fragment;
  }
  return rows;
}

/**
 * The table starting at line `start`, if one does: its first line has two or more cells, and the lines after
 * it have each of their cells under one of those columns, no higher than its first line and at most three
 * lines' height below the lowest so far. Prose after the table spans columns and ends it; trailing rows with a
 * single cell (a note under the table) are left to the text. Two rows at least.
 */
export function tableAt(lines: Line[], start: number): PdfTable | null {
  const first = lines[start]!;
  if (first.cells.length < 2) return null;
  const columns: Column[] = first.cells.map((c) => ({ left: c.left, right: c.right }));
  const fragments: Fragment[] = [];
  let lowest = first.y;
  let end = start;
  for (; end < Math.min(lines.length, start + MAX_TABLE_LINES); end++) {
    const line = lines[end]!;
    if (line.y > first.y + line.size * 0.3 || line.y < lowest - line.size * 3) break;
    const at = columnsOf(line.cells, columns, line.size * 0.5);
    if (!at) break;
    line.cells.forEach((cell, i) => {
      const column = columns[at[i]!]!;
      column.left = Math.min(column.left, cell.left);
      column.right = Math.max(column.right, cell.right);
      fragments.push({ y: line.y, column: at[i]!, line: end, segments: cell.segments });
    });
    lowest = Math.min(lowest, line.y);
  }
  let rows = rowsOf(fragments, first.size);
  // A last row of one cell, written after the rest, is more likely a note under the table than a row.
  while (rows.length > 2) {
    const last = rows.at(-1)!;
    const own = new Set(last.map((f) => f.line));
    if (new Set(last.map((f) => f.column)).size > 1 || Math.min(...own) !== end - own.size) break;
    end -= own.size;
    rows = rows.slice(0, -1);
  }
  if (rows.length < 2) return null;
  const table = rows.map((row) =>
    columns.map((_, c) =>
      row
        .filter((f) => f.column === c)
        .flatMap((f, i) => (i === 0 ? f.segments : [{ text: ' ', href: null }, ...f.segments])),
    ),
  );
  const cells = table.flat();
  const chars = cells.reduce((n, c) => n + textOf(c).trim().length, 0);
  if (chars / cells.length > MAX_MEAN_CELL_CHARS) return null;
  return { end, rows: table };
}
