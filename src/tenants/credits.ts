/** What a page document asked for, besides its page, that Firecrawl's credit rule charges. */
export interface CreditCharges {
  /** A json format (or v1's extract) was written by the LLM. */
  json?: boolean;
  /** The document was answered from the cache in lockdown mode. */
  lockdown?: boolean;
}

/** The metadata the rule reads: a parsed PDF is a document of type application/pdf with a page count. */
export interface CreditedMetadata {
  contentType?: string;
  /** Pages of the document (its total in a page document, the pages read in a Firecrawl document). */
  numPages?: number;
  /** Pages read when the page limit cut the document short. */
  pagesRead?: number;
  /** The page came through the stealth proxies (a page document's flag; Firecrawl's `proxyUsed: "stealth"`). */
  stealthProxy?: boolean;
  proxyUsed?: string;
}

/**
 * Credits of one page document, Firecrawl's rule (docs/reference/firecrawl.md): 1 a page; a json format, or a
 * lockdown answer, makes it 5; a parsed PDF adds its pages read after the first; stealth proxies add 4. The
 * same function counts a tenant's credits and writes `metadata.creditsUsed`, so the two always agree.
 */
export function creditsOf(metadata: CreditedMetadata, charges: CreditCharges = {}): number {
  const base = charges.json || charges.lockdown ? 5 : 1;
  const parsedPdf = metadata.contentType === 'application/pdf' && metadata.numPages !== undefined;
  const pages = parsedPdf ? (metadata.pagesRead ?? metadata.numPages!) : 1;
  const stealth = metadata.stealthProxy === true || metadata.proxyUsed === 'stealth';
  return base + Math.max(0, pages - 1) + (stealth ? 4 : 0);
}
