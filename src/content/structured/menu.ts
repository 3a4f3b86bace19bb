import type { SchemaGraph, SchemaNode } from './json-ld.js';
import { hasType, typesOf } from './json-ld.js';
import type { MenuData, MenuItem, MenuSection } from './profiles.js';
import {
  availabilityOf,
  firstText,
  imagesOf,
  priceOf,
  slugOf,
  textValue,
  urlValue,
} from './schema-values.js';

const MERCHANT =
  /^(restaurant|foodestablishment|cafeorcoffeeshop|bakery|barorpub|fastfoodrestaurant|icecreamshop|brewery|winery|distillery|localbusiness)$/;
/** Sections, items (over all sections) and add-on options kept at most; nested sections read this deep. */
const MAX_SECTIONS = 100;
const MAX_ITEMS = 1000;
const MAX_OPTIONS = 50;
const MAX_NESTING = 5;
/** A menu the page declares in schema.org is the page's menu with little doubt. */
const DECLARED_CONFIDENCE = 0.95;

/** schema.org's diets ("https://schema.org/GlutenFreeDiet") as plain words ("gluten-free"). */
function dietsOf(graph: SchemaGraph, item: SchemaNode): string[] {
  return graph
    .all(item, 'suitableForDiet')
    .map((d) => (typeof d === 'string' ? d : String((d as SchemaNode | null)?.name ?? '')))
    .map((d) => d.split(/[/#:]/).pop()!.replace(/Diet$/, ''))
    .filter(Boolean)
    .map((d) => d.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase());
}

function caloriesOf(graph: SchemaGraph, item: SchemaNode): number | undefined {
  const nutrition = graph.nodesOf(item, 'nutrition')[0];
  const text = nutrition ? textValue(graph, nutrition, 'calories') : undefined;
  const number = text ? /\d+(?:\.\d+)?/.exec(text.replace(/,/g, ''))?.[0] : undefined;
  return number ? Number(number) : undefined;
}

/** Add-ons (menuAddOn): a section of choices is one group; loose items make one unnamed group. */
function optionGroupsOf(graph: SchemaGraph, item: SchemaNode): unknown[] {
  const option = (n: SchemaNode) => {
    const offer = graph.nodesOf(n, 'offers')[0];
    const price = offer ? priceOf(graph, offer) : undefined;
    return { name: textValue(graph, n, 'name') ?? '', ...(price ? { price } : {}) };
  };
  const groups: unknown[] = [];
  const loose: unknown[] = [];
  for (const addOn of graph.nodesOf(item, 'menuAddOn').slice(0, MAX_OPTIONS)) {
    if (hasType(addOn, /^menusection$/)) {
      const options = graph.nodesOf(addOn, 'hasMenuItem').slice(0, MAX_OPTIONS).map(option);
      groups.push({ name: textValue(graph, addOn, 'name') ?? '', options });
    } else loose.push(option(addOn));
  }
  if (loose.length > 0) groups.push({ options: loose });
  return groups;
}

function itemOf(graph: SchemaGraph, node: SchemaNode, id: string, base: URL): MenuItem {
  const offer = graph.nodesOf(node, 'offers')[0];
  const price = offer ? priceOf(graph, offer) : undefined;
  const merchantItemId = firstText(graph, node, ['identifier', 'sku', 'productID']);
  const description = textValue(graph, node, 'description');
  const calories = caloriesOf(graph, node);
  const url = urlValue(graph, node, 'url', base);
  return {
    id: merchantItemId ?? id,
    name: textValue(graph, node, 'name') ?? '',
    ...(description ? { description } : {}),
    images: imagesOf(graph, node, base),
    ...(price ? { price } : {}),
    // An item on a menu is offered unless the page says it is not.
    availability: offer?.availability !== undefined ? availabilityOf(graph, offer) : { inStock: true },
    dietary: dietsOf(graph, node),
    ...(calories !== undefined ? { calories } : {}),
    optionGroups: optionGroupsOf(graph, node),
    identifiers: merchantItemId ? { merchantItemId } : {},
    ...(url ? { url } : {}),
    sourceUrl: base.href,
  };
}

/** Sections of a menu (nested sections flattened after their parent), and loose items as one unnamed section. */
function sectionsOf(graph: SchemaGraph, holder: SchemaNode, base: URL): MenuSection[] {
  const sections: MenuSection[] = [];
  let items = 0;
  const add = (node: SchemaNode, name: string, fallbackId: string): void => {
    if (sections.length >= MAX_SECTIONS) return;
    const id = slugOf(name) || fallbackId;
    const members = graph.nodesOf(node, 'hasMenuItem').slice(0, Math.max(0, MAX_ITEMS - items));
    items += members.length;
    if (members.length === 0) return;
    const description = name ? textValue(graph, node, 'description') : undefined;
    sections.push({
      id,
      name,
      ...(description ? { description } : {}),
      items: members.map((m, j) => itemOf(graph, m, `${id}-${j + 1}`, base)),
    });
  };
  add(holder, '', 'menu');
  const visit = (node: SchemaNode, depth: number): void => {
    for (const section of graph.nodesOf(node, 'hasMenuSection')) {
      add(section, textValue(graph, section, 'name') ?? '', `section-${sections.length + 1}`);
      if (depth < MAX_NESTING) visit(section, depth + 1);
    }
  };
  visit(holder, 0);
  return sections;
}

function locationOf(graph: SchemaGraph, merchant: SchemaNode): unknown {
  const address = graph.all(merchant, 'address')[0];
  if (typeof address === 'string') return address.trim() || undefined;
  if (!address || typeof address !== 'object') return undefined;
  const fields = ['streetAddress', 'addressLocality', 'addressRegion', 'postalCode', 'addressCountry'];
  const out = Object.fromEntries(
    fields.map((f) => [f, textValue(graph, address as SchemaNode, f)]).filter(([, v]) => v !== undefined),
  );
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The page's menu from its schema.org data: a Menu (or a restaurant's hasMenu) with its MenuSections and
 * MenuItems, or the page's MenuSections when it declares no Menu. Null when it declares no item.
 */
export function readMenu(graph: SchemaGraph, pageUrl: URL): MenuData | null {
  const merchant = graph.find(MERCHANT);
  const menu =
    graph.find(/^menu$/) ??
    (merchant ? graph.nodesOf(merchant, 'hasMenu').find((m) => hasType(m, /^menu$/)) : undefined);
  // Without a Menu, the page's outermost sections (neither a section's part nor an item's add-ons) make one.
  const nested = new Set(
    graph.nodes.flatMap((n) => [...graph.nodesOf(n, 'hasMenuSection'), ...graph.nodesOf(n, 'menuAddOn')]),
  );
  const outer = graph.nodes.filter((n) => hasType(n, /^menusection$/) && !nested.has(n));
  const holder: SchemaNode = menu ?? {
    hasMenuSection: outer,
    hasMenuItem:
      outer.length === 0 ? graph.nodes.filter((n) => hasType(n, /^menuitem$/) && !nested.has(n)) : [],
  };
  const sections = sectionsOf(graph, holder, pageUrl);
  if (sections.length === 0) return null;
  const currency = sections.flatMap((s) => s.items).find((i) => i.price?.currency)?.price?.currency ?? null;
  const location = merchant ? locationOf(graph, merchant) : undefined;
  return {
    isMenu: true,
    confidence: DECLARED_CONFIDENCE,
    merchant: {
      name:
        (merchant ? textValue(graph, merchant, 'name') : undefined) ??
        (menu ? textValue(graph, menu, 'name') : undefined) ??
        '',
      type: merchant ? (typesOf(merchant)[0] ?? null) : null,
      ...(location !== undefined ? { location } : {}),
    },
    currency,
    sections,
    sourceUrl: pageUrl.href,
  };
}
