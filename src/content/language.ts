import { detect } from 'tinyld';

/**
 * Language from <html lang>, else the Content-Language header, else detected from the text ('und' if unsure);
 * `text` is made only then.
 */
export function pageLanguage(
  declared: string | null,
  header: string | undefined,
  text: () => string,
): string {
  if (declared) return declared;
  const fromHeader = header?.split(',')[0]?.trim();
  if (fromHeader) return fromHeader;
  const sample = text().slice(0, 600);
  return (sample.length >= 20 ? detect(sample) : '') || 'und';
}
