import type { MenuData, MenuItem, MenuSection } from '../../content/structured/profiles.js';
import { slugOf } from '../../content/structured/schema-values.js';
import type { PageDocument } from '../../schemas/page.js';
import { declaredOrRead } from './traced.js';
import type { TracedReading, TracedValues } from './traced.js';

/** A menu a model read from the page's text (nothing declared it) is less certain than a declared one. */
const READ_CONFIDENCE = 0.6;
/** Items kept at most over all sections. */
const MAX_ITEMS = 1000;

const TEXT = { type: 'string' };
const MENU_SCHEMA = {
  type: 'object',
  properties: {
    isMenu: { type: 'boolean', description: "false when the page is not a restaurant's or shop's menu" },
    merchantName: TEXT,
    currency: { type: 'string', description: 'ISO 4217 code' },
    sections: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        properties: {
          name: { type: 'string', description: "the section's heading; empty when the page has none" },
          description: TEXT,
          items: {
            type: 'array',
            maxItems: 300,
            items: {
              type: 'object',
              properties: {
                name: TEXT,
                description: TEXT,
                price: { type: 'number' },
                dietary: { type: 'array', items: TEXT, description: "words such as 'vegan' the page uses" },
                calories: { type: 'number' },
              },
              required: ['name'],
            },
          },
        },
        required: ['items'],
      },
    },
  },
  required: ['isMenu'],
};

type LlmItem = { name: string; description?: string; price?: number; dietary?: string[]; calories?: number };
type LlmMenu = {
  isMenu: boolean;
  merchantName?: string;
  currency?: string;
  sections?: { name?: string; description?: string; items: LlmItem[] }[];
};

/** The items of a section the page bears out (an item whose name it does not hold is left out). */
function tracedItems(
  traced: TracedValues,
  items: LlmItem[],
  field: string,
  sectionId: string,
  url: string,
  currency?: string,
) {
  const out: MenuItem[] = [];
  items.forEach((item, j) => {
    const at = `${field}.items[${j}]`;
    const name = traced.text(`${at}.name`, item.name);
    if (!name) return;
    const description = traced.text(`${at}.description`, item.description);
    const price = traced.price(`${at}.price`, { amount: item.price }, currency);
    const calories = traced.amount(`${at}.calories`, item.calories);
    out.push({
      id: `${sectionId}-${j + 1}`,
      name,
      ...(description ? { description } : {}),
      images: [],
      ...(price ? { price } : {}),
      availability: { inStock: true },
      dietary: (item.dietary ?? [])
        .map((d, k) => traced.text(`${at}.dietary[${k}]`, d))
        .filter((d): d is string => d !== undefined)
        .map((d) => d.toLowerCase()),
      ...(calories !== undefined ? { calories } : {}),
      optionGroups: [],
      identifiers: {},
      sourceUrl: url,
    });
  });
  return out;
}

/** A menu the LLM read from a page that declares none, or null when it found none the page bears out. */
function read(doc: PageDocument, answer: LlmMenu, traced: TracedValues): MenuData | null {
  if (!answer.isMenu) return null;
  const currency = traced.currency('currency', answer.currency);
  const url = doc.metadata.url;
  const sections: MenuSection[] = [];
  let count = 0;
  for (const [i, s] of (answer.sections ?? []).entries()) {
    if (count >= MAX_ITEMS) break;
    const field = `sections[${i}]`;
    // A heading the page does not hold is left out; its items stand or fall on their own.
    const name = traced.text(`${field}.name`, s.name) ?? '';
    const id = slugOf(name) || `section-${i + 1}`;
    const items = tracedItems(traced, s.items.slice(0, MAX_ITEMS - count), field, id, url, currency);
    count += items.length;
    if (items.length === 0) continue;
    const description = traced.text(`${field}.description`, s.description);
    sections.push({ id, name, ...(description ? { description } : {}), items });
  }
  if (sections.length === 0) return null;
  return {
    isMenu: true,
    confidence: READ_CONFIDENCE,
    merchant: { name: traced.text('merchantName', answer.merchantName) ?? '', type: null },
    currency: currency ?? null,
    sections,
    sourceUrl: url,
  };
}

/**
 * The page's menu: what its schema.org data declares (the LLM, when there is one, gives a merchant name or
 * currency it lacks), or what the LLM reads from the page when it declares none. LLM values the page's text
 * does not bear out are left out.
 */
export function menuOf(
  doc: PageDocument,
  declared: MenuData | null,
  reading: TracedReading,
): Promise<{ value: MenuData | null; problems: string[] }> {
  const gaps = declared
    ? [declared.merchant.name ? null : 'merchantName', declared.currency ? null : 'currency'].filter(
        (g): g is string => g !== null,
      )
    : [];
  const task = declared
    ? `The page's structured data gives its menu but not its ${gaps.join(' or ')}. Give only those, isMenu true and no sections.`
    : "Give the menu this page shows (isMenu false when it shows none): the merchant's name, the currency, and its sections with their items, as the page writes them.";
  const request = {
    instructions: "You read a restaurant's or shop's menu from a web page.",
    task,
    schema: MENU_SCHEMA,
  };
  return declaredOrRead('menu', doc, declared, gaps, reading, request, (given, traced) => {
    const answer = given as LlmMenu;
    if (!declared) return read(doc, answer, traced);
    const name = declared.merchant.name || (traced.text('merchantName', answer.merchantName) ?? '');
    const currency = declared.currency ?? traced.currency('currency', answer.currency) ?? null;
    return { ...declared, merchant: { ...declared.merchant, name }, currency };
  });
}
