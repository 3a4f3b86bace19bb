export interface RenderSignals {
  wordCount: number;
  contentScriptRatio: number | null;
  detectedFrameworks: string[] | null;
  /** Id of an empty app mount point found in the tree, or null. */
  emptyAppRoot: string | null;
  /** An empty Angular root element or an ng-version attribute. */
  angularRoot: boolean;
}

/** A page with this many words of text is taken as static whatever its script signals. */
export const STATIC_PAGE_WORDS = 80;

/**
 * Why a page looks client-side rendered (so the http fetch misses its content), or null when it looks
 * static: an empty app mount point, or hardly any text next to a lot of script. Reads signals gathered
 * in the one walk of the parsed tree, so the check is linear in the page.
 */
export function clientRenderedReason(signals: RenderSignals): string | null {
  const { wordCount, contentScriptRatio, detectedFrameworks, emptyAppRoot, angularRoot } = signals;
  if (wordCount >= STATIC_PAGE_WORDS) return null;
  const frameworks = detectedFrameworks ? ` (${detectedFrameworks.join(', ')})` : '';
  if (emptyAppRoot !== null)
    return `empty app root #${emptyAppRoot} with ${wordCount} words of text${frameworks}`;
  if (angularRoot && wordCount < 30) return `empty Angular root with ${wordCount} words of text`;
  if (contentScriptRatio !== null && contentScriptRatio < 0.2 && wordCount < 50) {
    return `${wordCount} words of text next to mostly script (content/script ratio ${contentScriptRatio})${frameworks}`;
  }
  return null;
}
