/**
 * Where htmlparser2 would build a different tree than a browser from the same bytes, and lose the page for
 * it, the markup is rewritten to what the browser reads, before parsing. One linear scan; none when the page
 * has neither construct (one regular-expression test decides).
 *
 * - `<![CDATA[` is a CDATA section only inside SVG or MathML. Anywhere else WHATWG makes it a bogus comment
 *   that ends at the next `>`, so `<![CDATA[ <div>` hides only `<![CDATA[ <div` and the page goes on;
 *   htmlparser2 reads a section up to `]]>` wherever it is, and a stray marker (some forum software prints
 *   one near the top of every page) hides the whole page. It becomes `<?[CDATA[`, which both read as a
 *   bogus comment ending at the next `>`.
 * - `<noscript><iframe … /></noscript>` (a tag manager's snippet written as JSX): `/>` does not close an
 *   iframe, whose content is raw text up to `</iframe>`. A browser never sees it, since with scripting on
 *   `<noscript>` is itself raw text; parsed as elements, the iframe swallows the rest of the page. On a page
 *   with a self-closed iframe, an iframe left open in a `<noscript>` is closed before its `</noscript>`.
 */
const MARKERS =
  /<!--|<!\[CDATA\[|<(\/?)(script|style|textarea|title|xmp|iframe|noembed|noframes|svg|math|noscript)\b/gi;

const NEEDS_REPAIR = /<!\[CDATA\[|<iframe\b[^>]*\/>/i;

export function repairForParser(html: string): string {
  // Most pages have neither a stray marker nor an iframe written self-closing (the JSX form, left open).
  if (!NEEDS_REPAIR.test(html)) return html;
  const parts: string[] = [];
  let copied = 0;
  let rawText: string | null = null;
  let foreign = 0;
  let noscriptsClose = true;
  const markers = new RegExp(MARKERS);
  for (let m = markers.exec(html); m; m = markers.exec(html)) {
    const name = m[2]?.toLowerCase();
    if (rawText) {
      if (m[1] && name === rawText) rawText = null;
      continue;
    }
    if (m[0] === '<!--' || (m[0] === '<![CDATA[' && foreign > 0)) {
      // A comment, or a real CDATA section in SVG or MathML: nothing in it is markup.
      const end = html.indexOf(m[0] === '<!--' ? '-->' : ']]>', m.index + m[0].length);
      if (end < 0) break;
      markers.lastIndex = end + 3;
    } else if (m[0] === '<![CDATA[') {
      parts.push(html.slice(copied, m.index), '<?');
      copied = m.index + 2;
    } else if (name === 'noscript' && !m[1] && noscriptsClose) {
      const end = endOf(html, /<\/noscript\s*>/gi, markers.lastIndex);
      if (end < 0) {
        noscriptsClose = false; // none closes further on: no later one is searched for again
        continue;
      }
      const segment = html.slice(markers.lastIndex, end);
      const open = segment.search(/<iframe\b/i);
      if (open >= 0 && !/<\/iframe/i.test(segment.slice(open))) {
        parts.push(html.slice(copied, end), '</iframe>');
        copied = end;
      }
      // Its content is read once, here: the scan goes on after it, so that it stays linear.
      markers.lastIndex = end;
    } else if (name === 'svg' || name === 'math') foreign = Math.max(0, foreign + (m[1] ? -1 : 1));
    else if (!m[1] && name !== 'noscript') rawText = name!;
  }
  parts.push(html.slice(copied));
  return parts.join('');
}

/** Where `pattern` (global) next matches in `html` from `from`, or -1. */
function endOf(html: string, pattern: RegExp, from: number): number {
  pattern.lastIndex = from;
  return pattern.exec(html)?.index ?? -1;
}
