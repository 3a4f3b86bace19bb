import type { Page } from 'playwright-core';
import type { Deadline } from '../../lib/deadline.js';
import { CommandError } from './command-error.js';
import { locate, startRefs } from './targets.js';

/** `snapshot`'s flags, as agent-browser names them. */
export interface SnapshotOptions {
  /** `-i`: only elements with a ref (interactive ones, named headings/cells/list items/landmarks). */
  interactive: boolean;
  /** `-c`: only lines with a ref or a value, and their ancestors. */
  compact: boolean;
  /** `-d <n>`: no deeper than n levels. */
  depth: number | null;
  /** `-s <sel|@ref>`: the subtree of that element only. */
  selector: string | null;
  /** `-u`: links show their `url=`. */
  urls: boolean;
}

/** A node of Playwright's AI-mode aria snapshot (`ariaSnapshotJSON({mode: 'ai'})`); strings are text. */
interface AriaNode {
  role: string;
  name?: string;
  ref?: string;
  text?: string;
  url?: string;
  cursor?: string;
  level?: number;
  checked?: boolean | 'mixed';
  expanded?: boolean;
  pressed?: boolean | 'mixed';
  selected?: boolean;
  disabled?: boolean;
  children?: (AriaNode | string)[];
}

/** Roles that always get a ref (agent-browser's list; `iframe` is Playwright's spelling of its `Iframe`). */
const INTERACTIVE_ROLES = new Set([
  'button',
  'link',
  'textbox',
  'checkbox',
  'radio',
  'combobox',
  'listbox',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'searchbox',
  'slider',
  'spinbutton',
  'switch',
  'tab',
  'treeitem',
  'iframe',
]);
/** Roles that get a ref when they have a name. */
const CONTENT_ROLES = new Set([
  'heading',
  'cell',
  'gridcell',
  'columnheader',
  'rowheader',
  'listitem',
  'article',
  'region',
  'main',
  'navigation',
]);

/** Roles whose `checked` state is shown even when false (Playwright leaves it out then). */
const CHECKABLE_ROLES = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);

/**
 * The page's accessibility tree in agent-browser's text form, one element a line:
 * `- heading "Sign up" [level=1, ref=e2]`, `- textbox "Name" [ref=e6]: Ada`, `- text: Some text`. Each ref
 * stands for one of Playwright's (targets.ts), so `click @e6` finds the element later, in this call or a later
 * one on the page, until the next snapshot or navigation.
 */
export async function takeSnapshot(
  page: Page,
  options: SnapshotOptions,
  deadline: Deadline,
): Promise<string> {
  const timeout = Math.max(1, deadline.remainingMs());
  const root = options.selector ? await locate(page, options.selector) : page;
  let tree: unknown;
  try {
    tree = await root.ariaSnapshotJSON({ mode: 'ai', timeout });
  } catch (err) {
    if (options.selector) {
      throw new CommandError(`Selector '${options.selector}' did not match any element`, 1);
    }
    throw err;
  }
  const nodes = (Array.isArray(tree) ? tree : [tree]) as (AriaNode | string)[];
  const lines: string[] = [];
  const issue = startRefs(page);
  for (const node of nodes) render(node, 0, lines, issue, options);
  const text = (options.compact ? compact(lines) : lines).join('\n').trim();
  if (text) return text;
  return options.interactive ? '(no interactive elements)' : '(empty page)';
}

/** Whether agent-browser would give this element a ref (Playwright gives one to nearly every element). */
function showsRef(node: AriaNode): boolean {
  if (!node.ref) return false;
  if (INTERACTIVE_ROLES.has(node.role) || node.cursor === 'pointer') return true;
  return CONTENT_ROLES.has(node.role) && Boolean(node.name);
}

function render(
  node: AriaNode | string,
  indent: number,
  lines: string[],
  issue: (playwrightRef: string) => string,
  options: SnapshotOptions,
): void {
  if (options.depth !== null && indent > options.depth) return;
  const pad = '  '.repeat(indent);
  if (typeof node === 'string') {
    if (!options.interactive && node.trim()) lines.push(`${pad}- text: ${node}`);
    return;
  }
  const children = node.children ?? [];
  const withRef = showsRef(node);
  const unnamedWrapper = node.role === 'generic' && !withRef && children.length <= 1;
  if ((options.interactive && !withRef) || unnamedWrapper) {
    if (node.text !== undefined && children.length === 0) render(node.text, indent, lines, issue, options);
    for (const child of children) render(child, indent, lines, issue, options);
    return;
  }
  let line = `${pad}- ${node.role}`;
  if (node.name) line += ` ${JSON.stringify(node.name)}`;
  const attrs: string[] = [];
  if (node.level !== undefined) attrs.push(`level=${node.level}`);
  const checked = node.checked ?? (CHECKABLE_ROLES.has(node.role) ? false : undefined);
  if (checked !== undefined) attrs.push(`checked=${checked}`);
  if (node.pressed !== undefined) attrs.push(`pressed=${node.pressed}`);
  if (node.expanded !== undefined) attrs.push(`expanded=${node.expanded}`);
  if (node.selected) attrs.push('selected');
  if (node.disabled) attrs.push('disabled');
  if (withRef) attrs.push(`ref=${issue(node.ref!)}`);
  if (options.urls && node.url) attrs.push(`url=${node.url}`);
  if (attrs.length > 0) line += ` [${attrs.join(', ')}]`;
  if (node.text && node.text !== node.name) line += `: ${node.text}`;
  lines.push(line);
  for (const child of children) render(child, indent + 1, lines, issue, options);
}

/** agent-browser's `-c`: keeps the lines with a ref or a value, and the lines above them in the tree. */
function compact(lines: string[]): string[] {
  const keep = lines.map(() => false);
  lines.forEach((line, i) => {
    if (!line.includes('ref=') && !line.includes(': ')) return;
    keep[i] = true;
    let depth = indentOf(line);
    for (let j = i - 1; j >= 0 && depth > 0; j--) {
      const d = indentOf(lines[j]!);
      if (d < depth) {
        keep[j] = true;
        depth = d;
      }
    }
  });
  return lines.filter((_, i) => keep[i]);
}

const indentOf = (line: string): number => (line.length - line.trimStart().length) / 2;
