/** pdf.js text items grouped into lines, and each line into cells where a wide gap separates its text. */

export interface TextItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL: boolean;
}

export interface Segment {
  text: string;
  href: string | null;
}

/** A run of a line's text with no wide gap inside: a table cell when lines line up in columns. */
export interface Cell {
  left: number;
  right: number;
  segments: Segment[];
}

export interface Line {
  y: number;
  x: number;
  size: number;
  segments: Segment[];
  cells: Cell[];
}

export interface LinkArea {
  url: string;
  rect: [number, number, number, number];
}

/**
 * A gap between two runs of a line wider than this many font sizes separates cells. pdf.js already keeps
 * gaps under 0.6 em inside one item (as word spaces), so what is left is layout: columns, tab stops.
 */
const CELL_GAP_EM = 0.9;

/** Splits an item's text where a link area ends or starts, by the item's average character width. */
function segmentsOf(item: TextItem, links: LinkArea[]): Segment[] {
  const x0 = item.transform[4]!;
  const y = item.transform[5]!;
  const link = links.find(
    (l) => y >= l.rect[1] - 2 && y <= l.rect[3] + 2 && x0 + item.width > l.rect[0] && x0 < l.rect[2],
  );
  if (!link || item.str.length === 0) return [{ text: item.str, href: null }];
  const charWidth = item.width / item.str.length || 1;
  const cut = (x: number): number => {
    let at = Math.max(0, Math.min(item.str.length, Math.round((x - x0) / charWidth)));
    // Move the cut to the nearest word boundary, so a link never splits a word.
    while (at > 0 && at < item.str.length && /\S/.test(item.str[at - 1]!) && /\S/.test(item.str[at]!)) at++;
    return at;
  };
  const start = cut(link.rect[0]);
  const end = Math.max(start, cut(link.rect[2]));
  return [
    { text: item.str.slice(0, start), href: null },
    { text: item.str.slice(start, end), href: link.url },
    { text: item.str.slice(end), href: null },
  ].filter((s) => s.text.length > 0);
}

/** The items of a page as lines: a new line when the baseline moves or an item ends one. */
export function linesOf(items: TextItem[], links: LinkArea[]): Line[] {
  const lines: Line[] = [];
  let current: Line | null = null;
  let lastRight = 0;
  for (const item of items) {
    const size = Math.abs(item.transform[3]!) || item.height;
    const y = item.transform[5]!;
    const x = item.transform[4]!;
    if (!current || Math.abs(current.y - y) > Math.max(2, size * 0.3)) {
      current = { y, x, size: 0, segments: [], cells: [] };
      lines.push(current);
    }
    const segments = segmentsOf(item, links);
    current.segments.push(...segments);
    if (item.str.trim() !== '') {
      current.size = Math.max(current.size, size);
      const cell = current.cells.at(-1);
      if (!cell || x - lastRight >= size * CELL_GAP_EM) {
        current.cells.push({ left: x, right: x + item.width, segments });
      } else {
        cell.segments.push(...segments);
        cell.right = Math.max(cell.right, x + item.width);
      }
      lastRight = x + item.width;
    } else {
      // A space between runs: a word space inside the cell; a wide one is the gap before the next cell.
      current.cells.at(-1)?.segments.push(...segments);
    }
    if (item.hasEOL) current = null;
  }
  return lines.filter((l) => l.cells.length > 0);
}
