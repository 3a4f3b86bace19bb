import { normalizeForMatch } from './quotes.js';

/**
 * A page's text, to check that a value someone (an LLM) gives for the page occurs in it: text compared after
 * normalizing (quotes.ts), amounts as the page could write them, currencies by their code or their sign.
 */
export class PageTrace {
  private readonly text: string;

  constructor(text: string) {
    this.text = ` ${normalizeForMatch(text)} `;
  }

  /** The text occurs in the page (at least two characters, after normalizing). */
  has(value: string): boolean {
    const normalized = normalizeForMatch(value);
    return normalized.length >= 2 && this.text.includes(normalized);
  }

  /** The amount occurs as a number of its own ("19.99", "19,99", "20.00" for 20, "1,299.00", "1.299,00", "1 299,00"). */
  hasAmount(amount: number): boolean {
    if (!Number.isFinite(amount) || amount < 0) return false;
    const plain = [String(amount), amount.toFixed(2)];
    const grouped = ['en-US', 'de-DE', 'fr-FR'].flatMap((locale) => [
      amount.toLocaleString(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
      amount.toLocaleString(locale, { maximumFractionDigits: 2 }),
    ]);
    const forms = new Set([...plain, ...plain.map((p) => p.replace('.', ',')), ...grouped]);
    for (const form of forms) {
      const escaped = normalizeForMatch(form).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      if (new RegExp(`(^|[^\\d.,])${escaped}($|[^\\d]|[.,](?!\\d))`).test(this.text)) return true;
    }
    return false;
  }

  /** The currency is named by its code ("EUR") or written by its sign ("€"). */
  hasCurrency(code: string): boolean {
    if (!/^[A-Za-z]{3}$/.test(code)) return false;
    if (new RegExp(`(^|[^a-z])${code.toLowerCase()}($|[^a-z])`).test(this.text)) return true;
    for (const display of ['narrowSymbol', 'symbol'] as const) {
      try {
        const sign = new Intl.NumberFormat('en-US', {
          style: 'currency',
          currency: code,
          currencyDisplay: display,
        })
          .formatToParts(1)
          .find((p) => p.type === 'currency')?.value;
        if (sign && sign.toLowerCase() !== code.toLowerCase() && this.text.includes(normalizeForMatch(sign)))
          return true;
      } catch {
        return false;
      }
    }
    return false;
  }
}
