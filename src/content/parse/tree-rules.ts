/**
 * htmlparser2's rules of a tree's shape (its Parser.js), for the tree builder: which elements are void, which
 * open elements an opening tag closes, where SVG and MathML hand back to HTML, SVG's mixed-case names, and
 * which elements hold text up to their end tag. They follow htmlparser2's version in package.json, and
 * `test/content/tree-builder.test.ts` holds the builder to htmlparser2's trees.
 */
const VOID = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
const FORM_TAGS = new Set(['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea']);
const P_TAG = new Set(['p']);
const HEADING_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p']);
const TABLE_SECTION_TAGS = new Set(['thead', 'tbody']);
const DDT_TAGS = new Set(['dd', 'dt']);
const RTP_TAGS = new Set(['rt', 'rp']);
/** Open elements an opening tag closes first, while they are the innermost. */
const OPEN_IMPLIES_CLOSE = new Map<string, Set<string>>([
  ['tr', new Set(['tr', 'th', 'td'])],
  ['th', new Set(['th'])],
  ['td', new Set(['thead', 'th', 'td'])],
  ['body', new Set(['head', 'link', 'script'])],
  ['a', new Set(['a'])],
  ['li', new Set(['li'])],
  ['p', P_TAG],
  ['h1', HEADING_TAGS],
  ['h2', HEADING_TAGS],
  ['h3', HEADING_TAGS],
  ['h4', HEADING_TAGS],
  ['h5', HEADING_TAGS],
  ['h6', HEADING_TAGS],
  ['select', FORM_TAGS],
  ['input', FORM_TAGS],
  ['output', FORM_TAGS],
  ['button', FORM_TAGS],
  ['datalist', FORM_TAGS],
  ['textarea', FORM_TAGS],
  ['option', new Set(['option'])],
  ['optgroup', new Set(['optgroup', 'option'])],
  ['dd', DDT_TAGS],
  ['dt', DDT_TAGS],
  ...[
    'address',
    'article',
    'aside',
    'blockquote',
    'details',
    'div',
    'dl',
    'fieldset',
    'figcaption',
    'figure',
    'footer',
    'form',
    'header',
    'hr',
    'main',
    'nav',
    'ol',
    'pre',
    'section',
    'table',
    'ul',
  ].map((name): [string, Set<string>] => [name, P_TAG]),
  ['rt', RTP_TAGS],
  ['rp', RTP_TAGS],
  ['tbody', TABLE_SECTION_TAGS],
  ['tfoot', TABLE_SECTION_TAGS],
]);
/** Elements whose content is HTML again inside SVG or MathML (SVG-adjusted case). */
const INTEGRATION = new Set([
  'mi',
  'mo',
  'mn',
  'ms',
  'mtext',
  'annotation-xml',
  'foreignObject',
  'desc',
  'title',
]);
export const SVG_NAMES = new Map(
  [
    'altGlyph',
    'altGlyphDef',
    'altGlyphItem',
    'animateColor',
    'animateMotion',
    'animateTransform',
    'clipPath',
    'feBlend',
    'feColorMatrix',
    'feComponentTransfer',
    'feComposite',
    'feConvolveMatrix',
    'feDiffuseLighting',
    'feDisplacementMap',
    'feDistantLight',
    'feDropShadow',
    'feFlood',
    'feFuncA',
    'feFuncB',
    'feFuncG',
    'feFuncR',
    'feGaussianBlur',
    'feImage',
    'feMerge',
    'feMergeNode',
    'feMorphology',
    'feOffset',
    'fePointLight',
    'feSpecularLighting',
    'feSpotLight',
    'feTile',
    'feTurbulence',
    'foreignObject',
    'glyphRef',
    'linearGradient',
    'radialGradient',
    'textPath',
  ].map((name) => [name.toLowerCase(), name]),
);
/** Elements whose content is text up to their end tag; title and textarea decode entities in it. */
export const RAW_TEXT = 1;
export const ESCAPABLE_RAW_TEXT = 2;
export const PLAIN_TEXT = 3;
export const TEXT_ELEMENTS = new Map([
  ...['script', 'style', 'iframe', 'noembed', 'noframes', 'xmp'].map((name): [string, number] => [
    name,
    RAW_TEXT,
  ]),
  ['title', ESCAPABLE_RAW_TEXT],
  ['textarea', ESCAPABLE_RAW_TEXT],
  ['plaintext', PLAIN_TEXT],
]);

/** The foreign contexts an element opens: HTML again (an integration point), SVG, MathML; or none. */
export const HTML_CONTEXT = 0;
export const SVG_CONTEXT = 1;
export const MATH_CONTEXT = 2;
export const NO_CONTEXT = -1;

/** What htmlparser2 does with an element of one name (after SVG's case and `image` are applied). */
export interface TagInfo {
  readonly isVoid: boolean;
  /** Open elements an opening tag of this name closes first, while they are the innermost. */
  readonly closes: ReadonlySet<string> | undefined;
  /** The foreign context its opening starts, or NO_CONTEXT. */
  readonly context: number;
  /** What its text is outside foreign content (TEXT_ELEMENTS: RAW_TEXT…), 0 for markup. */
  readonly text: number;
}

const infos = new Map<string, TagInfo>();
/** Names remembered at most: tag names are the page's to choose, and the rest are worked out each time. */
const MAX_REMEMBERED = 5_000;

export function tagInfo(name: string): TagInfo {
  let info = infos.get(name);
  if (info === undefined) {
    const context =
      name === 'svg'
        ? SVG_CONTEXT
        : name === 'math'
          ? MATH_CONTEXT
          : INTEGRATION.has(name)
            ? HTML_CONTEXT
            : NO_CONTEXT;
    info = {
      isVoid: VOID.has(name),
      closes: OPEN_IMPLIES_CLOSE.get(name),
      context,
      text: TEXT_ELEMENTS.get(name) ?? 0,
    };
    if (infos.size < MAX_REMEMBERED) infos.set(name, info);
  }
  return info;
}
