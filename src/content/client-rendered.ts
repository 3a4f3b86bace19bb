const EMPTY_ROOT =
  /<(?:div|main|section)\b[^>]*\bid\s*=\s*["']?(root|app|__next|__nuxt|___gatsby|svelte|main-app)["']?[^>]*>\s*(?:<!--[^>]*-->\s*)*<\/(?:div|main|section)>/i;
const ANGULAR_ROOT = /<app-root\b[^>]*>\s*<\/app-root>|\bng-version=/i;

export interface RenderSignals {
  wordCount: number;
  contentScriptRatio: number | null;
  detectedFrameworks: string[] | null;
}

/**
 * Why a page looks client-side rendered (so the http fetch misses its content), or null when it looks
 * static: an empty app mount point, or hardly any text next to a lot of script.
 */
export function clientRenderedReason(html: string, signals: RenderSignals): string | null {
  const { wordCount, contentScriptRatio, detectedFrameworks } = signals;
  if (wordCount >= 80) return null;
  const frameworks = detectedFrameworks ? ` (${detectedFrameworks.join(', ')})` : '';
  const root = EMPTY_ROOT.exec(html);
  if (root) return `empty app root #${root[1]} with ${wordCount} words of text${frameworks}`;
  if (ANGULAR_ROOT.test(html) && wordCount < 30) return `empty Angular root with ${wordCount} words of text`;
  if (contentScriptRatio !== null && contentScriptRatio < 0.2 && wordCount < 50) {
    return `${wordCount} words of text next to mostly script (content/script ratio ${contentScriptRatio})${frameworks}`;
  }
  return null;
}
