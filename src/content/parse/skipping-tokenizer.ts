import { Tokenizer } from 'htmlparser2';

/**
 * htmlparser2's tokenizer, made to skip over runs of characters that cannot change its state. With entity
 * decoding on, the stock tokenizer looks at every character of text and of attribute values on its own
 * (each one a turn of its state machine), and walks raw text (`<script>`, `<style>`) and comments with a
 * character loop; here `indexOf` finds the next character that matters (`<`, `&` or the closing quote),
 * which is where the stock tokenizer would next do anything. Tag and attribute names, a turn a character
 * too, are read to their end in one loop. Every event, index and state is the same:
 * `test/content/skipping-tokenizer.test.ts` compares the two on the fixture pages and on edge cases.
 *
 * The overridden methods are the tokenizer's own (private in its types): when a version of htmlparser2
 * has none of that name, the stock tokenizer is used as it is.
 */
interface TokenizerInternals {
  buffer: string;
  index: number;
  offset: number;
  decodeEntities: boolean;
  /** Index in `buffer` of the next `&` at or after `ampFrom`, or -1 when there is none. */
  ampAt: number;
  ampFrom: number;
  ampBuffer: string | null;
  stateText(c: number): void;
  handleInAttributeValue(c: number, quote: number): void;
  fastForwardTo(c: number): boolean;
  stateInTagName(c: number): void;
  stateInClosingTagName(c: number): void;
  stateInAttributeName(c: number): void;
}

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const EQUALS = 0x3d;
const AMP = 0x26;
const DOUBLE_QUOTE = 0x22;

const stock = Tokenizer.prototype as unknown as TokenizerInternals;
const usable =
  typeof stock.stateText === 'function' &&
  typeof stock.handleInAttributeValue === 'function' &&
  typeof stock.fastForwardTo === 'function' &&
  typeof stock.stateInTagName === 'function' &&
  typeof stock.stateInClosingTagName === 'function' &&
  typeof stock.stateInAttributeName === 'function';

/** The next `&` at or after `from` in the tokenizer's buffer (one search per `&`, not one per run). */
function nextAmp(t: TokenizerInternals, from: number): number {
  if (t.ampBuffer !== t.buffer || from < t.ampFrom || (t.ampAt !== -1 && t.ampAt < from)) {
    t.ampBuffer = t.buffer;
    t.ampFrom = from;
    t.ampAt = t.buffer.indexOf('&', from);
  }
  return t.ampAt;
}

/** Moves the tokenizer to just before the next `stop` or `&` after the current character (its loop steps on). */
function skipTo(t: TokenizerInternals, stop: string): void {
  const from = t.index - t.offset + 1;
  const at = t.buffer.indexOf(stop, from);
  const amp = nextAmp(t, from);
  const next = at === -1 ? amp : amp === -1 ? at : Math.min(at, amp);
  t.index = (next === -1 ? t.buffer.length : next) + t.offset - 1;
}

/** Where a tag's or an attribute's name ends for the tokenizer: `/`, `>` or HTML whitespace (and `=`). */
const endsTagName = (c: number): boolean =>
  c === SLASH || c === GT || c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
const endsAttributeName = (c: number): boolean => c === EQUALS || endsTagName(c);

/**
 * Moves the tokenizer to the last character of the name it is in (its loop steps on to the character that
 * ends it), or to the buffer's end when the name runs on past it.
 */
function skipName(t: TokenizerInternals, ends: (c: number) => boolean): void {
  const buffer = t.buffer;
  let at = t.index - t.offset + 1;
  while (at < buffer.length && !ends(buffer.charCodeAt(at))) at++;
  t.index = at - 1 + t.offset;
}

class SkippingTokenizer extends Tokenizer {
  private ampAt = -1;
  private ampFrom = 0;
  private ampBuffer: string | null = null;
}

const skipping = SkippingTokenizer.prototype as unknown as TokenizerInternals;

skipping.stateText = function (this: TokenizerInternals, c: number): void {
  if (c !== LT && c !== AMP && this.decodeEntities) skipTo(this, '<');
  else stock.stateText.call(this, c);
};

skipping.handleInAttributeValue = function (this: TokenizerInternals, c: number, quote: number): void {
  if (c !== quote && c !== AMP && this.decodeEntities) skipTo(this, quote === DOUBLE_QUOTE ? '"' : "'");
  else stock.handleInAttributeValue.call(this, c, quote);
};

// Inside a name the stock tokenizer does nothing until the character that ends it.
skipping.stateInTagName = function (this: TokenizerInternals, c: number): void {
  if (endsTagName(c)) stock.stateInTagName.call(this, c);
  else skipName(this, endsTagName);
};

skipping.stateInClosingTagName = function (this: TokenizerInternals, c: number): void {
  if (endsTagName(c)) stock.stateInClosingTagName.call(this, c);
  else skipName(this, endsTagName);
};

skipping.stateInAttributeName = function (this: TokenizerInternals, c: number): void {
  if (endsAttributeName(c)) stock.stateInAttributeName.call(this, c);
  else skipName(this, endsAttributeName);
};

skipping.fastForwardTo = function (this: TokenizerInternals, c: number): boolean {
  const at = this.buffer.indexOf(String.fromCharCode(c), this.index - this.offset + 1);
  if (at !== -1) {
    this.index = at + this.offset;
    return true;
  }
  this.index = this.buffer.length + this.offset - 1;
  return false;
};

/** The tokenizer for htmlparser2's `Tokenizer` option. */
export const FastTokenizer: typeof Tokenizer = usable ? SkippingTokenizer : Tokenizer;
