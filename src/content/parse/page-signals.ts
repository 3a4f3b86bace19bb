import type { AnyNode, Element } from './dom.js';
import { isTag } from './dom.js';

export interface PageSignals {
  /** Client-side frameworks fingerprinted in the markup, sorted; null when none. */
  detectedFrameworks: string[] | null;
  /**
   * Share of visible text among visible text plus inline script code, from 0 (all script) to 1
   * (no script). Client-rendered shells score near 0.
   */
  contentScriptRatio: number;
  /** Id of an empty app mount point (`<div id="root"></div>`, `#__next`, ...), or null. */
  emptyAppRoot: string | null;
  /** An empty `<app-root>` or an `ng-version` attribute: an Angular shell. */
  angularRoot: boolean;
}

const MOUNT_TAGS = new Set(['div', 'main', 'section']);
const MOUNT_IDS = new Set(['root', 'app', '__next', '__nuxt', '___gatsby', 'svelte', 'main-app']);

/** No element and no visible text inside: only white space and comments. */
function isEmpty(el: Element): boolean {
  return el.children.every((c) => c.type === 'comment' || (c.type === 'text' && visibleLength(c.data) === 0));
}

const IMPLIES: Record<string, string[]> = {
  'next.js': ['react'],
  gatsby: ['react'],
  remix: ['react'],
  nuxt: ['vue'],
  sveltekit: ['svelte'],
};

// Maps, not object literals: an id or attribute named `constructor` must not read Object's prototype.
const ROOT_IDS = new Map([
  ['__next', 'next.js'],
  ['___gatsby', 'gatsby'],
  ['__nuxt', 'nuxt'],
]);
const MARKER_ATTRIBUTES = new Map([
  ['data-reactroot', 'react'],
  ['data-react-helmet', 'react'],
  ['ng-version', 'angular'],
  ['ng-app', 'angular'],
  ['data-v-app', 'vue'],
  ['data-server-rendered', 'vue'],
]);
const MARKER_PREFIXES: [string, string][] = [
  ['_nghost-', 'angular'],
  ['_ngcontent-', 'angular'],
  ['data-v-', 'vue'],
  ['data-sveltekit', 'sveltekit'],
];
const MARKER_STARTS = new Set(
  [...MARKER_ATTRIBUTES.keys(), ...MARKER_PREFIXES.map(([prefix]) => prefix)].map((name) =>
    name.charCodeAt(0),
  ),
);
const SCRIPT_SOURCES: [string, string][] = [
  ['/_next/', 'next.js'],
  ['/_nuxt/', 'nuxt'],
  ['react-dom', 'react'],
  ['vue.global', 'vue'],
  ['vue.runtime', 'vue'],
  ['/_app/immutable/', 'sveltekit'],
];
const INLINE_GLOBALS: [string, string][] = [
  ['__NEXT_DATA__', 'next.js'],
  ['__next_f', 'next.js'],
  ['__NUXT__', 'nuxt'],
  ['__remixContext', 'remix'],
  ['__sveltekit', 'sveltekit'],
];

function frameworksOf(el: Element, found: Set<string>): void {
  const attribs = el.attribs;
  if (el.name === 'astro-island') found.add('astro');
  const id = attribs.id;
  const root = id === undefined ? undefined : ROOT_IDS.get(id);
  if (root) found.add(root);
  for (const name in attribs) {
    // Most attributes (class, href, src) start with no marker's first letter: passed at once.
    if (!MARKER_STARTS.has(name.charCodeAt(0))) continue;
    const framework = MARKER_ATTRIBUTES.get(name);
    if (framework) found.add(framework);
    else for (const [prefix, named] of MARKER_PREFIXES) if (name.startsWith(prefix)) found.add(named);
  }
  if (attribs.class?.includes('svelte-')) found.add('svelte');
  if (el.name === 'script') {
    const src = attribs.src;
    if (src) for (const [marker, framework] of SCRIPT_SOURCES) if (src.includes(marker)) found.add(framework);
    if (id === '__NEXT_DATA__') found.add('next.js');
  }
}

/**
 * Framework fingerprints and the content/script ratio from one walk of the tree. Inline scripts are
 * only looked at in their first few hundred characters, where framework bootstraps set their globals.
 */
export function pageSignals(root: AnyNode): PageSignals {
  const found = new Set<string>();
  let text = 0;
  let script = 0;
  let emptyAppRoot: string | null = null;
  let angularRoot = false;
  const walk = (node: AnyNode, inScript: boolean): void => {
    if (node.type === 'text') {
      if (inScript) {
        script += node.data.length;
        const head = node.data.slice(0, 400);
        for (const [marker, framework] of INLINE_GLOBALS) if (head.includes(marker)) found.add(framework);
      } else text += visibleLength(node.data);
      return;
    }
    if (isTag(node)) {
      frameworksOf(node, found);
      if (emptyAppRoot === null && MOUNT_TAGS.has(node.name)) {
        const id = (node.attribs.id ?? '').toLowerCase();
        if (MOUNT_IDS.has(id) && isEmpty(node)) emptyAppRoot = id;
      }
      if ((node.name === 'app-root' && isEmpty(node)) || node.attribs['ng-version'] !== undefined)
        angularRoot = true;
      if (node.name === 'script') {
        const type = node.attribs.type ?? '';
        // JSON data islands (e.g. __NEXT_DATA__) are script weight too: the page needs JS to show them.
        if (type === '' || /javascript|module|json/i.test(type)) node.children.forEach((c) => walk(c, true));
        return;
      }
      if (node.name === 'style' || node.name === 'template' || node.name === 'noscript') return;
    }
    if ('children' in node) for (const child of node.children) walk(child, inScript);
  };
  walk(root, false);
  for (const framework of [...found]) IMPLIES[framework]?.forEach((other) => found.add(other));
  return {
    detectedFrameworks: found.size > 0 ? [...found].sort() : null,
    contentScriptRatio: text + script === 0 ? 0 : Math.round((text / (text + script)) * 1000) / 1000,
    emptyAppRoot,
    angularRoot,
  };
}

/**
 * Characters that are not white space (code 32 or below, or a no-break space): a cheap, allocation-free
 * measure of visible text. Counted without a branch per character, `(32 - c) >>> 31` being 1 above 32: words
 * and spaces alternate in no order a processor predicts.
 */
export function visibleLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    n += (32 - c) >>> 31;
    if (c === 160) n--;
  }
  return n;
}
