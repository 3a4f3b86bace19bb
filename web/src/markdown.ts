import { h } from './dom.js';

/**
 * Markdown to DOM nodes for the playground, built with createElement and text nodes only, so nothing in a
 * page can run or style itself here. Covers what the service writes: headings, paragraphs, lists, quotes,
 * fenced code, GFM tables, links, images, emphasis and inline code. Links and images keep http(s) (and
 * data: images) only.
 */

const safeUrl = (url: string, image = false): string | null =>
  /^https?:\/\//i.test(url) || (image && /^data:image\//i.test(url)) ? url : null;

/** Inline Markdown: code spans, images, links, bold, italic. */
function inline(text: string): (Node | string)[] {
  const out: (Node | string)[] = [];
  const pattern =
    /(`+)([^`]+?)\1|!\[([^\]]*)\]\(([^)\s]+)\)|\[([^\]]+)\]\(([^)\s]+)\)|\*\*([^*]+)\*\*|(?<![\w*])\*([^*\n]+)\*(?!\w)/g;
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index! > last) out.push(text.slice(last, m.index));
    if (m[2] !== undefined) out.push(h('code', {}, m[2]));
    else if (m[4] !== undefined) {
      const src = safeUrl(m[4], true);
      out.push(src ? h('img', { src, alt: m[3] ?? '', loading: 'lazy' }) : `[image: ${m[3] ?? ''}]`);
    } else if (m[6] !== undefined) {
      const href = safeUrl(m[6]);
      out.push(
        href ? h('a', { href, rel: 'noopener noreferrer', target: '_blank' }, ...inline(m[5]!)) : m[5]!,
      );
    } else if (m[7] !== undefined) out.push(h('strong', {}, ...inline(m[7])));
    else if (m[8] !== undefined) out.push(h('em', {}, ...inline(m[8])));
    last = m.index! + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

const cells = (line: string): string[] =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, '|'));

export function renderMarkdown(markdown: string): DocumentFragment {
  const root = document.createDocumentFragment();
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = /^(\s*)(```+|~~~+)\s*([\w+-]*)/.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trimStart().startsWith(fence[2]!)) body.push(lines[i++]!);
      i++;
      root.append(h('pre', {}, h('code', fence[3] ? { 'data-lang': fence[3] } : {}, body.join('\n'))));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const tag = `h${heading[1]!.length}` as 'h1';
      root.append(h(tag, {}, ...inline(heading[2]!)));
      i++;
      continue;
    }
    if (/^\s*\|.*\|\s*$/.test(line) && /^\s*\|?\s*:?-{3,}/.test(lines[i + 1] ?? '')) {
      const head = cells(line);
      i += 2;
      const rows: string[][] = [];
      while (i < lines.length && /^\s*\|.*\|\s*$/.test(lines[i]!)) rows.push(cells(lines[i++]!));
      root.append(
        h(
          'table',
          {},
          h('thead', {}, h('tr', {}, ...head.map((c) => h('th', { scope: 'col' }, ...inline(c))))),
          h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, ...inline(c)))))),
        ),
      );
      continue;
    }
    if (/^\s*>/.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && /^\s*>/.test(lines[i]!)) quoted.push(lines[i++]!.replace(/^\s*>\s?/, ''));
      root.append(h('blockquote', {}, renderMarkdown(quoted.join('\n'))));
      continue;
    }
    const item = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      const ordered = /\d/.test(item[2]!);
      const list = h(ordered ? 'ol' : 'ul', {});
      while (i < lines.length) {
        const m = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/.exec(lines[i]!);
        if (m) {
          list.append(h('li', {}, ...inline(m[3]!)));
          i++;
        } else if (/^\s{2,}\S/.test(lines[i]!) && list.lastElementChild) {
          list.lastElementChild.append(' ', ...inline(lines[i++]!.trim()));
        } else if (lines[i]!.trim() === '' && /^(\s*)([-*+]|\d+[.)])\s+|^\s{2,}\S/.test(lines[i + 1] ?? '')) {
          i++;
        } else break;
      }
      root.append(list);
      continue;
    }
    const paragraph: string[] = [];
    while (
      i < lines.length &&
      lines[i]!.trim() !== '' &&
      !/^(#{1,6}\s|```|~~~|\s*>|\s*([-*+]|\d+[.)])\s)/.test(lines[i]!)
    )
      paragraph.push(lines[i++]!.trim());
    if (paragraph.length === 0) paragraph.push(lines[i++]!.trim());
    root.append(h('p', {}, ...inline(paragraph.join(' '))));
  }
  return root;
}
