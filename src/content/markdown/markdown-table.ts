import type { AnyNode, Element } from '../parse/dom.js';
import { isTag } from '../parse/dom.js';
import { isInvisible } from '../parse/visibility.js';

interface CellRenderer {
  inline(el: AnyNode): string;
  children(node: AnyNode): string;
  block(content: string): string;
}

/** Rows of a table in order (thead, tbody, tfoot, bare tr), not descending into nested tables. */
function tableRows(table: Element): Element[] {
  const rows: Element[] = [];
  const visit = (node: Element): void => {
    for (const child of node.children) {
      if (!isTag(child) || isInvisible(child)) continue;
      if (child.name === 'tr') rows.push(child);
      else if (child.name === 'thead' || child.name === 'tbody' || child.name === 'tfoot') visit(child);
    }
  };
  visit(table);
  return rows;
}

function cellsOf(row: Element): Element[] {
  return row.children.filter(
    (c): c is Element => isTag(c) && (c.name === 'td' || c.name === 'th') && !isInvisible(c),
  );
}

function hasNestedTable(node: Element): boolean {
  for (const child of node.children) {
    if (!isTag(child)) continue;
    if (child.name === 'table' || hasNestedTable(child)) return true;
  }
  return false;
}

/**
 * A GFM table for data tables. Layout tables (a single column, or tables nesting tables) are rendered
 * as their content blocks instead, since a pipe table would garble them.
 */
export function renderTable(table: Element, renderer: CellRenderer): string {
  const rows = tableRows(table);
  const width = Math.max(0, ...rows.map((row) => cellsOf(row).reduce((n, c) => n + span(c), 0)));
  if (rows.length === 0 || width < 2 || hasNestedTable(table)) {
    return rows
      .map((row) =>
        cellsOf(row)
          .map((cell) => renderer.block(renderer.children(cell)))
          .join(''),
      )
      .join('');
  }
  const lines = rows.map((row) => {
    const cells: string[] = [];
    for (const cell of cellsOf(row)) {
      const text = renderer.inline(cell).replace(/\|/g, '\\|');
      cells.push(text);
      for (let i = 1; i < span(cell); i++) cells.push('');
    }
    while (cells.length < width) cells.push('');
    return `| ${cells.join(' | ')} |`;
  });
  const captionEl = table.children.find((c): c is Element => isTag(c) && c.name === 'caption');
  const caption = captionEl ? renderer.inline(captionEl) : '';
  const separator = `| ${Array.from({ length: width }, () => '---').join(' | ')} |`;
  lines.splice(1, 0, separator);
  return `${caption ? `${caption}\n\n` : ''}${lines.join('\n')}`;
}

function span(cell: Element): number {
  const value = Number.parseInt(cell.attribs.colspan ?? '1', 10);
  return Number.isFinite(value) && value > 1 ? Math.min(value, 50) : 1;
}
