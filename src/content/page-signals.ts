import type { AnyNode } from './parse.js';
import { isTag } from './parse.js';

/** Markers in the raw HTML that identify client-side frameworks; each may imply others. */
const FRAMEWORK_MARKERS: { name: string; markers: string[]; implies?: string[] }[] = [
  { name: 'next.js', markers: ['id="__next"', '/_next/static/', '__NEXT_DATA__'], implies: ['react'] },
  { name: 'gatsby', markers: ['id="___gatsby"'], implies: ['react'] },
  { name: 'remix', markers: ['__remixContext'], implies: ['react'] },
  { name: 'react', markers: ['data-reactroot', 'react-dom', '_reactRootContainer', 'data-react-helmet'] },
  { name: 'nuxt', markers: ['id="__nuxt"', '/_nuxt/', '__NUXT__'], implies: ['vue'] },
  { name: 'vue', markers: ['data-v-app', 'data-server-rendered', 'vue.global', 'vue.runtime'] },
  { name: 'angular', markers: ['ng-version=', 'ng-app', '_nghost-', 'ng-app='] },
  { name: 'sveltekit', markers: ['__sveltekit', 'data-sveltekit'], implies: ['svelte'] },
  { name: 'svelte', markers: ['class="svelte-', ' svelte-'] },
  { name: 'astro', markers: ['<astro-island'] },
];

/** Frameworks whose fingerprints appear in the page, or null when none do. */
const MARKER_OWNER = new Map<string, (typeof FRAMEWORK_MARKERS)[number]>();
for (const framework of FRAMEWORK_MARKERS)
  for (const marker of framework.markers) MARKER_OWNER.set(marker, framework);
/** One pass over the HTML for every marker at once. */
const ANY_MARKER = new RegExp(
  [...MARKER_OWNER.keys()].map((m) => m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'),
  'g',
);

export function detectFrameworks(html: string): string[] | null {
  const found = new Set<string>();
  for (const match of html.matchAll(ANY_MARKER)) {
    const framework = MARKER_OWNER.get(match[0])!;
    found.add(framework.name);
    framework.implies?.forEach((other) => found.add(other));
  }
  return found.size > 0 ? [...found].sort() : null;
}

/**
 * Share of visible text among visible text plus inline script code, from 0 (all script) to 1
 * (no script). Client-rendered shells score near 0.
 */
export function contentScriptRatio(root: AnyNode): number {
  let text = 0;
  let script = 0;
  const walk = (node: AnyNode, inScript: boolean): void => {
    if (node.type === 'text') {
      if (inScript) script += node.data.length;
      else text += visibleLength(node.data);
      return;
    }
    if (isTag(node)) {
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
  return text + script === 0 ? 0 : Math.round((text / (text + script)) * 1000) / 1000;
}

/** Characters that are not white space: a cheap, allocation-free measure of visible text. */
export function visibleLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 32 && c !== 160) n++;
  }
  return n;
}
