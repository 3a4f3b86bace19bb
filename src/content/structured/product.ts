import type { SchemaGraph, SchemaNode } from './json-ld.js';
import { hasType } from './json-ld.js';
import type { ProductData, ProductVariant } from './profiles.js';
import {
  availabilityOf,
  compact,
  firstText,
  imagesOf,
  originalPriceOf,
  priceOf,
  textValue,
  urlValue,
} from './schema-values.js';

const PRODUCT = /^(product|productgroup|individualproduct|productmodel|vehicle|car)$/;
const OFFER = /^(offer|aggregateoffer)$/;
/** Variants kept at most. */
const MAX_VARIANTS = 100;
/** Properties that set a variant apart when its group does not list them (variesBy). */
const VARIANT_PROPERTIES = ['color', 'size', 'material', 'pattern', 'suggestedAge', 'suggestedGender'];

/** The offers of a product (Offer, AggregateOffer), references resolved. */
const offersOf = (graph: SchemaGraph, node: SchemaNode): SchemaNode[] =>
  graph.nodesOf(node, 'offers').filter((o) => hasType(o, OFFER) || o.price !== undefined);

/** A sale: the list price the page gives is higher than the price. */
function saleOf(graph: SchemaGraph, offer: SchemaNode | undefined, price: ProductVariant['price']) {
  const original = offer ? originalPriceOf(graph, offer) : undefined;
  return original && price && original.amount > price.amount ? { originalPrice: original } : undefined;
}

/** One variant from a product of a group (its own offer, values and images; the group's images otherwise). */
function variantOf(graph: SchemaGraph, product: SchemaNode, keys: string[], base: URL): ProductVariant {
  const offer = offersOf(graph, product)[0];
  const price = offer ? priceOf(graph, offer) : undefined;
  const values: Record<string, unknown> = {};
  for (const key of keys) {
    const value = textValue(graph, product, key);
    if (value !== undefined) values[key] = value;
  }
  const images = imagesOf(graph, product, base);
  return compact({
    id: firstText(graph, product, ['productID', '@id']),
    sku: textValue(graph, product, 'sku') ?? (offer ? textValue(graph, offer, 'sku') : undefined),
    title: textValue(graph, product, 'name'),
    values: Object.keys(values).length > 0 ? values : undefined,
    price,
    sale: saleOf(graph, offer, price),
    availability: availabilityOf(graph, offer),
    images: images.length > 0 ? images : undefined,
  });
}

/** One variant per offer of a single product (sizes or conditions sold at their own price). */
function offerVariant(
  graph: SchemaGraph,
  product: SchemaNode,
  offer: SchemaNode | undefined,
): ProductVariant {
  const price = offer ? priceOf(graph, offer) : undefined;
  return compact({
    id: offer ? textValue(graph, offer, '@id') : undefined,
    sku: (offer ? textValue(graph, offer, 'sku') : undefined) ?? textValue(graph, product, 'sku'),
    title: (offer ? textValue(graph, offer, 'name') : undefined) ?? textValue(graph, product, 'name'),
    price,
    sale: saleOf(graph, offer, price),
    availability: availabilityOf(graph, offer),
  });
}

/**
 * The page's product from its schema.org data (JSON-LD or microdata): a ProductGroup with its variants
 * (hasVariant), or the first Product with one variant per offer. Null when the page declares no named product.
 */
export function readProduct(graph: SchemaGraph, pageUrl: URL): ProductData | null {
  const main = graph.find(/^productgroup$/) ?? graph.nodes.find((n) => hasType(n, PRODUCT));
  if (!main) return null;
  const title = textValue(graph, main, 'name');
  if (!title) return null;
  const members = graph.nodesOf(main, 'hasVariant').filter((v) => hasType(v, PRODUCT));
  const varies = graph
    .all(main, 'variesBy')
    .filter((v): v is string => typeof v === 'string')
    .map((v) => v.split(/[/#:]/).pop()!);
  const keys = varies.length > 0 ? varies : VARIANT_PROPERTIES;
  const offers = offersOf(graph, main);
  const variants =
    members.length > 0
      ? members.slice(0, MAX_VARIANTS).map((v) => variantOf(graph, v, keys, pageUrl))
      : (offers.length > 0 ? offers.slice(0, MAX_VARIANTS) : [undefined]).map((o) =>
          offerVariant(graph, main, o),
        );
  // The product's own images belong to variants that have none of their own.
  const groupImages = imagesOf(graph, main, pageUrl);
  if (groupImages.length > 0) for (const v of variants) v.images ??= groupImages;
  return compact({
    title,
    brand: textValue(graph, main, 'brand'),
    category: textValue(graph, main, 'category'),
    url: urlValue(graph, main, 'url', pageUrl) ?? pageUrl.href,
    description: textValue(graph, main, 'description'),
    variants,
  });
}
