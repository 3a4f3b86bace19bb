// Apart from the parser: configuration reads these defaults without loading an HTML parser.
export interface TreeLimits {
  /** Elements nested deeper than this refuse the page (MAX_HTML_DEPTH). */
  maxDepth: number;
  /** Elements and text nodes beyond this refuse the page (MAX_HTML_NODES). */
  maxNodes: number;
}

/** Bounds for callers that give none: Chromium's own parser depth and a million nodes. */
export const DEFAULT_TREE_LIMITS: TreeLimits = { maxDepth: 512, maxNodes: 1_000_000 };
