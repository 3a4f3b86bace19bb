/**
 * Just enough of PDF's object syntax (ISO 32000 §7.2-7.3) to read the dictionaries in front of streams, the
 * trailer and the encryption dictionary, tokenized the way pdf.js's lexer does (comments, `#xx` in names,
 * escapes in strings), so that the stream checks read the same values as the reader that follows.
 */

export class PdfName {
  constructor(readonly name: string) {}
}
export class PdfRef {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}
export class PdfCommand {
  constructor(readonly command: string) {}
}
export type PdfDict = Map<string, PdfValue>;
export type PdfValue =
  number | boolean | null | PdfName | PdfRef | PdfCommand | Uint8Array | PdfValue[] | PdfDict;

type Token = PdfValue | '<<' | '>>' | '[' | ']' | typeof EOF;
const EOF = Symbol('eof');

/** 0: regular, 1: white space, 2: delimiter (pdf.js's table). */
const CLASS = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) CLASS[c] = 1;
for (const c of '()<>[]{}/%') CLASS[c.charCodeAt(0)] = 2;

export const isWhite = (c: number): boolean => c >= 0 && CLASS[c] === 1;
const isRegular = (c: number): boolean => c >= 0 && CLASS[c] === 0;
const hex = (c: number): number =>
  c >= 0x30 && c <= 0x39 ? c - 0x30 : (c | 0x20) >= 0x61 && (c | 0x20) <= 0x66 ? (c | 0x20) - 0x57 : -1;

export class PdfLexer {
  /** Bytes read so far by this lexer: the caller bounds the work of many lexers over one file. */
  read = 0;

  constructor(
    private readonly bytes: Uint8Array,
    public pos: number,
  ) {}

  private peek(): number {
    return this.pos < this.bytes.length ? this.bytes[this.pos]! : -1;
  }

  private next(): number {
    this.read++;
    return this.pos < this.bytes.length ? this.bytes[this.pos++]! : -1;
  }

  /** Skips white space and comments. */
  skipSpace(): void {
    for (let c = this.peek(); c !== -1; c = this.peek()) {
      if (c === 0x25) {
        while (c !== -1 && c !== 0x0a && c !== 0x0d) c = this.next();
      } else if (isWhite(c)) this.next();
      else return;
    }
  }

  token(): Token {
    this.skipSpace();
    const c = this.next();
    if (c === -1) return EOF;
    if (c === 0x2f) return new PdfName(this.name());
    if (c === 0x28) return this.literal();
    if (c === 0x5b) return '[';
    if (c === 0x5d) return ']';
    if (c === 0x3c) {
      if (this.peek() !== 0x3c) return this.hexString();
      this.next();
      return '<<';
    }
    if (c === 0x3e) {
      if (this.peek() !== 0x3e) return new PdfCommand('>');
      this.next();
      return '>>';
    }
    if (c === 0x2b || c === 0x2d || c === 0x2e || (c >= 0x30 && c <= 0x39)) return this.number(c);
    let word = String.fromCharCode(c);
    if (CLASS[c] === 2) return new PdfCommand(word); // { } ) stray delimiters
    while (isRegular(this.peek())) word += String.fromCharCode(this.next());
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null') return null;
    return new PdfCommand(word);
  }

  /** Signs, digits and one point, stopping at anything else (`0obj` is 0 then obj, as for pdf.js). */
  private number(first: number): number {
    let c = first;
    let negative = false;
    while (c === 0x2b || c === 0x2d) {
      negative ||= c === 0x2d;
      if (!/[-+.\d]/.test(String.fromCharCode(this.peek()))) return 0;
      c = this.next();
    }
    let text = String.fromCharCode(c);
    for (
      let point = c === 0x2e, d = this.peek();
      (d >= 0x30 && d <= 0x39) || (d === 0x2e && !point);
      d = this.peek()
    ) {
      point ||= d === 0x2e;
      text += String.fromCharCode(this.next());
    }
    const value = Number(text === '.' ? 0 : text);
    return negative ? -value : value;
  }

  private name(): string {
    let name = '';
    for (let c = this.peek(); isRegular(c); c = this.peek()) {
      this.next();
      if (c === 0x23 && hex(this.peek()) >= 0) {
        const high = hex(this.next());
        const low = hex(this.peek());
        if (low >= 0) {
          this.next();
          name += String.fromCharCode((high << 4) | low);
        } else name += '#' + String.fromCharCode(this.bytes[this.pos - 1]!);
      } else name += String.fromCharCode(c);
    }
    return name;
  }

  private literal(): Uint8Array {
    const out: number[] = [];
    const ESCAPES: Record<number, number> = { 0x6e: 10, 0x72: 13, 0x74: 9, 0x62: 8, 0x66: 12 };
    for (let depth = 1, c = this.next(); c !== -1; c = this.next()) {
      if (c === 0x28) depth++;
      else if (c === 0x29 && --depth === 0) break;
      if (c !== 0x5c) {
        out.push(c);
        continue;
      }
      c = this.next();
      if (c === -1) break;
      const escaped = ESCAPES[c];
      if (escaped !== undefined) out.push(escaped);
      else if (c >= 0x30 && c <= 0x37) {
        let x = c & 7;
        for (let i = 0; i < 2 && this.peek() >= 0x30 && this.peek() <= 0x37; i++)
          x = (x << 3) + (this.next() & 7);
        out.push(x & 0xff);
      } else if (c === 0x0d) {
        if (this.peek() === 0x0a) this.next();
      } else if (c !== 0x0a) out.push(c);
    }
    return Uint8Array.from(out);
  }

  private hexString(): Uint8Array {
    const out: number[] = [];
    let first = -1;
    for (let c = this.next(); c !== -1 && c !== 0x3e; c = this.next()) {
      const digit = hex(c);
      if (digit < 0) continue;
      if (first < 0) first = digit;
      else {
        out.push((first << 4) | digit);
        first = -1;
      }
    }
    if (first >= 0) out.push(first << 4);
    return Uint8Array.from(out);
  }

  /** After the `stream` keyword: the data starts after the end of its line (pdf.js's skipToNextLine). */
  streamStart(): number {
    for (let c = this.next(); c !== -1; c = this.next()) {
      if (c === 0x0a) break;
      if (c === 0x0d) {
        if (this.peek() === 0x0a) this.next();
        break;
      }
    }
    return this.pos;
  }
}

/**
 * Objects read from a lexer, with pdf.js's two tokens of look-ahead (for `N G R`). Dictionaries and arrays
 * nest without recursion (a file may nest them deeper than a stack allows). Malformed input reads as far as
 * it makes sense, as pdf.js does: a dictionary key that is not a name is skipped, a later key wins.
 */
export class PdfParser {
  private readonly pending: Token[] = [];

  constructor(readonly lexer: PdfLexer) {}

  /** The next token, past any looked at ahead. */
  token(): Token {
    return this.pending.shift() ?? this.lexer.token();
  }

  private peek(i: number): Token {
    while (this.pending.length <= i) this.pending.push(this.lexer.token());
    return this.pending[i]!;
  }

  /** The next object; END_OF_FILE when nothing is left. */
  object(): PdfValue | typeof EOF {
    const stack: (PdfValue[] | PdfDict)[] = [];
    const keys: (string | null)[] = [];
    for (;;) {
      let value: PdfValue;
      const t = this.token();
      if (t === EOF) return stack.length > 0 ? stack[0]! : EOF;
      if (t === '<<' || t === '[') {
        stack.push(t === '<<' ? new Map() : []);
        keys.push(null);
        continue;
      }
      if (t === '>>' || t === ']') {
        if (stack.length === 0) continue;
        value = stack.pop()!;
        keys.pop();
      } else if (typeof t === 'number' && Number.isInteger(t) && t >= 0) {
        const gen = this.peek(0);
        const r = this.peek(1);
        if (
          typeof gen === 'number' &&
          Number.isInteger(gen) &&
          r instanceof PdfCommand &&
          r.command === 'R'
        ) {
          this.pending.splice(0, 2);
          value = new PdfRef(t, gen);
        } else value = t;
      } else value = t;
      const top = stack.at(-1);
      if (top === undefined) return value;
      if (Array.isArray(top)) top.push(value);
      else if (keys.at(-1) === null) {
        if (value instanceof PdfName) keys[keys.length - 1] = value.name;
      } else {
        top.set(keys.at(-1)!, value);
        keys[keys.length - 1] = null;
      }
    }
  }
}

export { EOF as END_OF_FILE };

/** Canonical text of a value: equal for equal objects (two definitions of one object, two encryptions). */
export const canonical = (value: PdfValue | undefined): string =>
  JSON.stringify(value ?? null, (_k, v: unknown) =>
    v instanceof Map ? Object.fromEntries(v) : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v,
  );
