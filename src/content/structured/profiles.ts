/**
 * What a product page and a menu page declare, in the shape Firecrawl's SDK reads (ProductProfile and
 * MenuProfile of @mendable/firecrawl-js): read from schema.org structured data here, completed by an LLM above.
 */

export interface Price {
  amount: number;
  currency?: string;
  /** The amount written for people (e.g. "$19.99"). */
  formatted?: string;
}

export interface Availability {
  /** True only when the page says the item can be had now. */
  inStock: boolean;
  /** What the page says (schema.org's value without its vocabulary, e.g. "InStock", or the page's words). */
  text?: string;
}

export interface Image {
  url: string;
  alt?: string;
}

export interface ProductVariant {
  id?: string;
  sku?: string;
  title?: string;
  /** What sets this variant apart (color, size, material...). */
  values?: Record<string, unknown>;
  price?: Price;
  sale?: { originalPrice: Price };
  availability: Availability;
  images?: Image[];
}

export interface ProductData {
  title: string;
  brand?: string;
  category?: string;
  url: string;
  description?: string;
  variants: ProductVariant[];
}

export interface MenuItem {
  id: string;
  name: string;
  description?: string;
  images: Image[];
  price?: Price;
  availability: Availability;
  /** Diets the item suits, lowercased ("vegan", "gluten-free"). */
  dietary: string[];
  calories?: number;
  /** Add-ons and choices: `{name?, options: [{name, price?}]}`. */
  optionGroups: unknown[];
  identifiers: { merchantItemId?: string };
  url?: string;
  sourceUrl: string;
}

export interface MenuSection {
  id: string;
  name: string;
  description?: string;
  items: MenuItem[];
}

export interface MenuData {
  isMenu: boolean;
  /** How sure the server is that this is the page's menu (0..1): declared menus are surer than read ones. */
  confidence: number;
  merchant: { name: string; type?: string | null; location?: unknown };
  currency?: string | null;
  sections: MenuSection[];
  sourceUrl: string;
}
