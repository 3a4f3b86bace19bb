import type { Document, Element } from '../parse/dom.js';
import { allElements, isTag, textOf } from '../parse/dom.js';
import type { SchemaNode } from './json-ld.js';

/** Top-level microdata items read at most, and properties per item. */
const MAX_ITEMS = 200;
const MAX_PROPERTIES = 500;
const MAX_DEPTH = 10;

/** Elements whose itemprop value is a URL attribute rather than their text (HTML's microdata rules). */
const URL_ATTRIBUTE: Record<string, string> = {
  a: 'href',
  area: 'href',
  link: 'href',
  img: 'src',
  audio: 'src',
  video: 'src',
  source: 'src',
  embed: 'src',
  iframe: 'src',
  track: 'src',
  object: 'data',
};

/** An itemprop's value, as HTML's microdata defines it (content, URL attributes, datetime, value, else text). */
function propertyValue(el: Element): string {
  if (el.attribs.content !== undefined) return el.attribs.content.trim();
  const urlAttribute = URL_ATTRIBUTE[el.name];
  if (urlAttribute) return (el.attribs[urlAttribute] ?? '').trim();
  if (el.name === 'time' && el.attribs.datetime !== undefined) return el.attribs.datetime.trim();
  if ((el.name === 'data' || el.name === 'meter') && el.attribs.value !== undefined)
    return el.attribs.value.trim();
  return textOf(el);
}

/** One item: its type and id, and the properties of the elements below it up to the next item scope. */
function itemOf(scope: Element, depth: number): SchemaNode {
  const node: SchemaNode = {};
  const type = (scope.attribs.itemtype ?? '').trim().split(/\s+/).filter(Boolean);
  if (type.length > 0) node['@type'] = type.length === 1 ? type[0] : type;
  if (scope.attribs.itemid) node['@id'] = scope.attribs.itemid;
  let count = 0;
  const add = (name: string, value: unknown): void => {
    const current = node[name];
    if (current === undefined) node[name] = value;
    else if (Array.isArray(current)) current.push(value);
    else node[name] = [current, value];
  };
  const walk = (el: Element): void => {
    for (const child of el.children) {
      if (!isTag(child) || count >= MAX_PROPERTIES) continue;
      const names = (child.attribs.itemprop ?? '').trim().split(/\s+/).filter(Boolean);
      const scoped = 'itemscope' in child.attribs;
      if (names.length > 0) {
        count++;
        const value = scoped ? (depth < MAX_DEPTH ? itemOf(child, depth + 1) : {}) : propertyValue(child);
        for (const name of names) add(name, value);
      }
      if (!scoped) walk(child);
    }
  };
  walk(scope);
  return node;
}

/** The page's microdata items (those not themselves a property of another item), shaped as JSON-LD objects. */
export function microdataItems(doc: Document): SchemaNode[] {
  const items: SchemaNode[] = [];
  for (const el of allElements(doc)) {
    if (items.length >= MAX_ITEMS) break;
    if ('itemscope' in el.attribs && el.attribs.itemprop === undefined) items.push(itemOf(el, 0));
  }
  return items;
}
