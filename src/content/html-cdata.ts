/**
 * WHATWG HTML reads `<![CDATA[` as a CDATA section only inside SVG or MathML. Anywhere else it opens a bogus
 * comment that ends at the next `>`, so `<![CDATA[ <div>` hides only `<![CDATA[ <div` and the page goes on.
 * htmlparser2 reads it as a section up to `]]>` wherever it is: one stray marker, as some forum software
 * prints near the top of every page, hides the whole page. This rewrites each such marker outside foreign
 * content, raw text and comments into `<?[CDATA[`, which both read as a bogus comment ending at the next `>`:
 * the same length, the tree a browser builds. One linear scan, and none when the page has no marker.
 */
const MARKERS =
  /<!--|<!\[CDATA\[|<(\/?)(script|style|textarea|title|xmp|iframe|noembed|noframes|svg|math)\b/gi;

export function bogusCdataAsComments(html: string): string {
  if (!html.includes('<![CDATA[')) return html;
  const parts: string[] = [];
  let copied = 0;
  let rawText: string | null = null;
  let foreign = 0;
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
    } else if (name === 'svg' || name === 'math') foreign = Math.max(0, foreign + (m[1] ? -1 : 1));
    else if (!m[1]) rawText = name!;
  }
  parts.push(html.slice(copied));
  return parts.join('');
}
