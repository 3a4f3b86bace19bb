import type { ProductData, ProductVariant } from '../../content/structured/profiles.js';
import { compact } from '../../content/structured/schema-values.js';
import type { PageDocument } from '../../schemas/page.js';
import { declaredOrRead } from './traced.js';
import type { TracedReading, TracedValues } from './traced.js';

const TEXT = { type: 'string' };
const PRICE = {
  type: 'object',
  properties: { amount: { type: 'number' }, currency: { type: 'string', description: 'ISO 4217 code' } },
  required: ['amount'],
};
const PRODUCT_SCHEMA = {
  type: 'object',
  properties: {
    isProduct: { type: 'boolean', description: 'false when the page does not offer one product' },
    title: TEXT,
    brand: TEXT,
    category: TEXT,
    description: TEXT,
    variants: {
      type: 'array',
      maxItems: 20,
      items: {
        type: 'object',
        properties: {
          title: TEXT,
          sku: TEXT,
          price: PRICE,
          availability: { type: 'string', description: "the page's words, e.g. 'In stock'" },
          inStock: { type: 'boolean' },
        },
      },
    },
  },
  required: ['isProduct'],
};

type LlmVariant = { title?: string; sku?: string; price?: unknown; availability?: string; inStock?: boolean };
type LlmProduct = {
  isProduct: boolean;
  title?: string;
  brand?: string;
  category?: string;
  description?: string;
  variants?: LlmVariant[];
};

/** What the structured data left out that the LLM may fill: top-level fields, and a lone variant's price and stock. */
function gapsOf(product: ProductData): string[] {
  const gaps: string[] = (['brand', 'category', 'description'] as const).filter(
    (k) => product[k] === undefined,
  );
  const only = product.variants.length === 1 ? product.variants[0]! : null;
  if (only && !only.price) gaps.push('price');
  if (only && !only.availability.text) gaps.push('availability');
  return gaps;
}

function tracedVariant(traced: TracedValues, v: LlmVariant, i: number): ProductVariant {
  const field = `variants[${i}]`;
  const availability = traced.text(`${field}.availability`, v.availability);
  return compact({
    title: traced.text(`${field}.title`, v.title),
    sku: traced.text(`${field}.sku`, v.sku),
    price: traced.price(`${field}.price`, v.price),
    // In stock is believed only with the page's own words for it.
    availability: availability ? { inStock: v.inStock === true, text: availability } : { inStock: false },
  });
}

/** The declared product with the gaps the LLM filled from the page (only values the page bears out). */
function filled(
  declared: ProductData,
  answer: LlmProduct,
  traced: TracedValues,
  gaps: string[],
): ProductData {
  const product = { ...declared, variants: declared.variants.map((v) => ({ ...v })) };
  for (const key of ['brand', 'category', 'description'] as const) {
    if (gaps.includes(key)) product[key] = traced.text(key, answer[key]);
  }
  const given = answer.variants?.[0];
  const only = product.variants[0]!;
  if (given && (gaps.includes('price') || gaps.includes('availability'))) {
    const read = tracedVariant(traced, given, 0);
    if (gaps.includes('price') && read.price) only.price = read.price;
    if (gaps.includes('availability') && read.availability.text) only.availability = read.availability;
  }
  return compact(product);
}

/** A product the LLM read from a page that declares none, or null when it found none the page bears out. */
function read(doc: PageDocument, answer: LlmProduct, traced: TracedValues): ProductData | null {
  if (!answer.isProduct) return null;
  const title = traced.text('title', answer.title);
  if (!title) return null;
  const variants = (answer.variants ?? []).map((v, i) => tracedVariant(traced, v, i));
  return compact({
    title,
    brand: traced.text('brand', answer.brand),
    category: traced.text('category', answer.category),
    url: doc.metadata.url,
    description: traced.text('description', answer.description),
    variants: variants.length > 0 ? variants : [{ availability: { inStock: false } }],
  });
}

/**
 * The page's product: what its schema.org data declares, with what it lacks asked of the server's LLM (when
 * there is one); from the LLM alone when it declares none. LLM values the page's text does not bear out are
 * left out.
 */
export function productOf(
  doc: PageDocument,
  declared: ProductData | null,
  reading: TracedReading,
): Promise<{ value: ProductData | null; problems: string[] }> {
  const gaps = declared ? gapsOf(declared) : [];
  const task = declared
    ? `The page's structured data gives its product "${declared.title}" but not its ${gaps.join(', ')}. Give only those (price and availability as variants[0]) and isProduct true.`
    : 'Give the product this page offers (isProduct false when it offers none, or many: a list, an article). Variants are the options sold separately (sizes, colors), each with its price and availability as the page writes them.';
  const request = { instructions: 'You read the product a web page offers.', task, schema: PRODUCT_SCHEMA };
  return declaredOrRead('product', doc, declared, gaps, reading, request, (answer, traced) =>
    declared ? filled(declared, answer as LlmProduct, traced, gaps) : read(doc, answer as LlmProduct, traced),
  );
}
