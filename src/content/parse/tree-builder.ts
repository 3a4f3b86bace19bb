import { DecodingMode, decodeHTML, decodeHTMLAttribute } from 'entities';
import {
  ESCAPABLE_RAW_TEXT,
  HTML_CONTEXT,
  NO_CONTEXT,
  PLAIN_TEXT,
  SVG_CONTEXT,
  SVG_NAMES,
  tagInfo,
} from './tree-rules.js';
import type { TagInfo } from './tree-rules.js';

/**
 * Builds a page's tree in one pass over its markup, with the events htmlparser2's Parser would send the tree
 * handler for the same markup, in the same order: the same open, close and text events, the same implied
 * closes, void elements, foreign (SVG, MathML) contexts, raw and escapable raw text, comments and doctype.
 * htmlparser2 reaches them through its tokenizer's state machine, a turn per character and a callback per
 * token; here each construct is read to its end with `indexOf` and short loops, for a third less CPU.
 *
 * It reads the markup nearly every page is made of. At anything rarer (`<![CDATA[`, `<plaintext>`, markup
 * cut off inside a tag or comment, raw text with the control characters htmlparser2 reads as `<` or `/`) it
 * stops and answers false, and the page is parsed by htmlparser2 with a fresh handler.
 * `test/content/tree-builder.test.ts` holds the two to the same tree on the fixture pages and on generated
 * markup full of edge cases.
 */
export interface TreeEvents {
  onopentag(name: string, attribs: Record<string, string>): void;
  onclosetag(): void;
  ontext(data: string): void;
  oncomment(data: string): void;
  oncommentend(): void;
  onprocessinginstruction(name: string, data: string): void;
  onend(): void;
}

const GT = 0x3e;
const SLASH = 0x2f;
const EQUALS = 0x3d;
const DASH = 0x2d;
const BANG = 0x21;
const QUESTION = 0x3f;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
/** Ends a tag's or attribute's name, and follows a raw-text element's end tag name. */
const endsTagSection = (c: number): boolean => c === SLASH || c === GT || isSpace(c);
const isAsciiAlpha = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);

/** Characters htmlparser2 compares as `<` and `/` (it folds case with `| 0x20`) while it looks for an end tag. */
const FOLDED_LT = String.fromCharCode(0x1c);
const FOLDED_SLASH = String.fromCharCode(0x0f);

/**
 * Names read from markup, lower-cased, kept by a hash of their characters so that a name met again is the
 * same string: lookups in tree-rules.ts's tables and in the attributes' objects then find its hash and its
 * internalized form already made, where a fresh slice would be hashed and looked up in V8's string table
 * each time. A slot holds the last name that hashed to it.
 */
class Names {
  private readonly slots: (string | undefined)[] = new Array<string | undefined>(1024).fill(undefined);
  /** The slot of the name read last. */
  protected slot = 0;

  /** The lower-case name spelled by `s` from `start` to `end`, whose characters hash to `hash` (nameHash). */
  read(s: string, start: number, end: number, hash: number): string {
    const slot = (this.slot = hash & 1023);
    const known = this.slots[slot];
    if (known !== undefined && known.length === end - start && spells(s, start, known)) return known;
    const name = s.slice(start, end).toLowerCase();
    this.slots[slot] = name;
    this.replaced(slot);
    return name;
  }

  /** Called when a slot takes a new name. */
  protected replaced(_slot: number): void {}
}

/** Tag names, each slot with what its name means (tagInfo) once asked: no table lookup for a name met again. */
class TagNames extends Names {
  private readonly infos: (TagInfo | undefined)[] = new Array<TagInfo | undefined>(1024).fill(undefined);

  /** tagInfo of the name read last. */
  lastInfo(name: string): TagInfo {
    return (this.infos[this.slot] ??= tagInfo(name));
  }

  protected override replaced(slot: number): void {
    this.infos[slot] = undefined;
  }
}

/** The next step of a name's hash, from one of its characters (ASCII letters in either case hash alike). */
const nameHash = (hash: number, c: number): number => (Math.imul(hash, 31) + (c | 0x20)) | 0;

/** Whether `s` from `at` spells the lower-case `name`, with ASCII capitals read as their small letters. */
function spells(s: string, at: number, name: string): boolean {
  for (let k = 0; k < name.length; k++) {
    const c = s.charCodeAt(at + k);
    const n = name.charCodeAt(k);
    if (c !== n && !(c >= 0x41 && c <= 0x5a && c + 0x20 === n)) return false;
  }
  return true;
}

const TAG_NAMES = new TagNames();
const ATTRIBUTE_NAMES = new Names();

class Stop extends Error {}
const STOP = new Stop();

class TreeBuilder {
  private i = 0;
  /** The hash of the tag name tagNameEnd read last (nameHash). */
  private hash = 0;
  /** Open elements' names, innermost last. */
  private readonly stack: string[] = [];
  /** What is known of each open element's name, in the same order. */
  private readonly infos: TagInfo[] = [];
  /** Foreign contexts, innermost last: SVG, MathML or HTML again (an integration point). */
  private readonly foreign: number[] = [HTML_CONTEXT];

  constructor(
    private readonly s: string,
    private readonly out: TreeEvents,
  ) {}

  build(): void {
    const { s } = this;
    const length = s.length;
    let textStart = 0;
    let from = 0;
    while (true) {
      const lt = s.indexOf('<', from);
      if (lt === -1 || lt + 1 >= length) break;
      const c = s.charCodeAt(lt + 1);
      if (!isAsciiAlpha(c) && c !== SLASH && c !== BANG && c !== QUESTION) {
        from = lt + 1; // a `<` that starts no markup is text
        continue;
      }
      this.text(textStart, lt);
      if (isAsciiAlpha(c)) this.openTag(lt + 1);
      else if (c === BANG) this.declaration(lt + 2);
      else if (c === QUESTION) this.bogusComment(lt + 1);
      else {
        const n = s.charCodeAt(lt + 2);
        if (n === GT) this.i = lt + 3;
        else if (isAsciiAlpha(n)) this.closeTag(lt + 2);
        else this.bogusComment(lt + 2);
      }
      textStart = from = this.i;
    }
    this.text(textStart, length);
    for (let n = this.stack.length; n > 0; n--) this.pop();
    this.out.onend();
  }

  private text(start: number, end: number): void {
    if (end <= start) return;
    const data = this.s.slice(start, end);
    this.out.ontext(data.includes('&') ? decodeHTML(data, DecodingMode.Legacy) : data);
  }

  private inForeign(): boolean {
    return this.foreign[this.foreign.length - 1] !== HTML_CONTEXT;
  }

  /** htmlparser2's readTagName from a lower-case name: SVG's mixed case in SVG, `image` read as `img` in HTML. */
  private tagName(name: string): string {
    const context = this.foreign[this.foreign.length - 1];
    if (context === SVG_CONTEXT) return SVG_NAMES.get(name) ?? name;
    if (this.foreign.length > 1) {
      const adjusted = SVG_NAMES.get(name);
      if (adjusted !== undefined && this.stack.includes(adjusted)) return adjusted;
    }
    if (context === HTML_CONTEXT) return name === 'image' ? 'img' : name;
    return name;
  }

  /** Reads `<name attributes>` from the name's first character; `this.i` ends after the `>`. */
  private openTag(start: number): void {
    const { s } = this;
    const length = s.length;
    let j = this.tagNameEnd(start);
    const lower = TAG_NAMES.read(s, start, j, this.hash);
    const lowerInfo = TAG_NAMES.lastInfo(lower);
    const special = this.inForeign() ? 0 : lowerInfo.text;
    if (special === PLAIN_TEXT) throw STOP;
    const name = this.tagName(lower);
    const info = name === lower ? lowerInfo : tagInfo(name);
    const opened = this.emitOpen(name, info);
    const attribs: Record<string, string> = {};
    let selfClosing = false;
    // Attributes, up to the tag's `>`.
    while (true) {
      while (j < length && isSpace(s.charCodeAt(j))) j++;
      if (j >= length) throw STOP;
      let c = s.charCodeAt(j);
      if (c === GT) break;
      if (c === SLASH) {
        j++;
        while (j < length && isSpace(s.charCodeAt(j))) j++;
        if (j >= length) throw STOP;
        if (s.charCodeAt(j) === GT) {
          selfClosing = true;
          break;
        }
        continue;
      }
      // A name: its first character whatever it is, then up to `=`, white space, `/` or `>`.
      const nameStart = j++;
      let attributeHash = nameHash(0, c);
      while (j < length) {
        c = s.charCodeAt(j);
        if (c === EQUALS || endsTagSection(c)) break;
        attributeHash = nameHash(attributeHash, c);
        j++;
      }
      const attribute = ATTRIBUTE_NAMES.read(s, nameStart, j, attributeHash);
      while (j < length && isSpace(s.charCodeAt(j))) j++;
      if (j >= length) throw STOP;
      let value = '';
      if (s.charCodeAt(j) === EQUALS) {
        j++;
        while (j < length && isSpace(s.charCodeAt(j))) j++;
        if (j >= length) throw STOP;
        c = s.charCodeAt(j);
        if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE) {
          const close = s.indexOf(c === DOUBLE_QUOTE ? '"' : "'", j + 1);
          if (close === -1) throw STOP;
          value = s.slice(j + 1, close);
          j = close + 1;
        } else {
          const valueStart = j;
          while (j < length) {
            c = s.charCodeAt(j);
            if (c === GT || isSpace(c)) break;
            j++;
          }
          if (j >= length) throw STOP;
          value = s.slice(valueStart, j);
        }
        if (value.includes('&')) value = decodeHTMLAttribute(value);
      }
      if (!Object.hasOwn(attribs, attribute)) attribs[attribute] = value;
    }
    this.i = j + 1;
    if (opened) {
      this.out.onopentag(name, attribs);
      if (info.isVoid) this.out.onclosetag();
    }
    // In SVG and MathML `/>` ends an element at once (no raw-text element opens a foreign context).
    if (selfClosing && this.inForeign()) {
      if (opened && this.stack[this.stack.length - 1] === name) this.pop();
    } else if (special !== 0) this.rawText(lower, special === ESCAPABLE_RAW_TEXT);
  }

  /** htmlparser2's emitOpenTag: false for a second `<form>`, which is ignored with all it carries. */
  private emitOpen(name: string, info: TagInfo): boolean {
    const { stack } = this;
    if (name === 'form' && stack.includes('form')) return false;
    const closes = info.closes;
    if (closes) while (stack.length > 0 && closes.has(stack[stack.length - 1]!)) this.pop();
    if (!info.isVoid) {
      stack.push(name);
      this.infos.push(info);
      if (info.context !== NO_CONTEXT) this.foreign.push(info.context);
    }
    return true;
  }

  private pop(): void {
    this.stack.pop();
    if (this.infos.pop()!.context !== NO_CONTEXT) this.foreign.pop();
    this.out.onclosetag();
  }

  /** Reads `</name …>` from the name's first character. */
  private closeTag(start: number): void {
    const end = this.tagNameEnd(start);
    const lower = TAG_NAMES.read(this.s, start, end, this.hash);
    this.endTag(lower, TAG_NAMES.lastInfo(lower), end);
  }

  /** Where the tag name from `start` ends (at `/`, `>` or white space); its characters' hash goes in `hash`. */
  private tagNameEnd(start: number): number {
    const { s } = this;
    let j = start;
    let hash = 0;
    while (j < s.length) {
      const c = s.charCodeAt(j);
      if (endsTagSection(c)) break;
      hash = nameHash(hash, c);
      j++;
    }
    if (j >= s.length) throw STOP;
    this.hash = hash;
    return j;
  }

  /** An end tag whose lower-case name ends at `nameEnd`; `this.i` ends after its `>`. */
  private endTag(lower: string, lowerInfo: TagInfo, nameEnd: number): void {
    const gt = this.s.indexOf('>', nameEnd);
    if (gt === -1) throw STOP;
    this.i = gt + 1;
    const name = this.tagName(lower);
    const { stack } = this;
    if (!(name === lower ? lowerInfo : tagInfo(name)).isVoid) {
      const at = stack.lastIndexOf(name);
      if (at !== -1) {
        for (let n = stack.length - at; n > 0; n--) this.pop();
      } else if (name === 'p') {
        // `</p>` with no open `<p>` is an empty paragraph.
        this.emitOpen('p', tagInfo('p'));
        this.out.onopentag('p', {});
        this.pop();
      }
    } else if (name === 'br') {
      this.out.onopentag('br', {});
      this.out.onclosetag();
    }
  }

  /** The text of a raw-text element up to its end tag (htmlparser2 matches `</name` in any case, then a tag end). */
  private rawText(name: string, escapable: boolean): void {
    const { s } = this;
    const start = this.i;
    let at = start;
    let end = -1;
    while (true) {
      at = s.indexOf('</', at);
      if (at === -1) throw STOP;
      const nameEnd = at + 2 + name.length;
      if (nameEnd < s.length && endsTagSection(s.charCodeAt(nameEnd)) && sameLetters(s, at + 2, name)) {
        end = at;
        break;
      }
      at += 1;
    }
    const content = s.slice(start, end);
    if (content.includes(FOLDED_LT) || content.includes(FOLDED_SLASH)) throw STOP;
    if (content !== '') {
      if (escapable && content.includes('&')) {
        // An `&` right after a `<` is not an entity to htmlparser2 here.
        if (content.includes('<')) throw STOP;
        this.out.ontext(decodeHTML(content, DecodingMode.Legacy));
      } else this.out.ontext(content);
    }
    this.endTag(name, tagInfo(name), end + 2 + name.length);
  }

  /** After `<!`: a comment, the doctype, or a bogus comment (a CDATA section stops the builder). */
  private declaration(start: number): void {
    const { s } = this;
    if (s.charCodeAt(start) === DASH && s.charCodeAt(start + 1) === DASH) return this.comment(start + 2);
    if (s.startsWith('[CDATA[', start)) throw STOP;
    if (start + 7 <= s.length && s.slice(start, start + 7).toLowerCase() === 'doctype') {
      const gt = s.indexOf('>', start + 7);
      if (gt === -1) throw STOP;
      this.out.onprocessinginstruction('!doctype', `!${s.slice(start, gt)}`);
      this.i = gt + 1;
      return;
    }
    this.bogusComment(start);
  }

  /** `<?…>`, `</ …>` and other `<!…>`: a comment of what lies between `start` and the next `>`. */
  private bogusComment(start: number): void {
    const gt = this.s.indexOf('>', start);
    if (gt === -1) throw STOP;
    this.out.oncomment(this.s.slice(start, gt));
    this.out.oncommentend();
    this.i = gt + 1;
  }

  /** htmlparser2's comment states: ends at `-->` or `--!>`, and at once for `<!-->` and `<!--->`. */
  private comment(start: number): void {
    const { s } = this;
    const END = '--!>';
    let matched = 0;
    for (let j = start; j < s.length; j++) {
      const c = s.charCodeAt(j);
      let end = -1;
      if (matched <= 1 && j === start + matched && c === GT) end = j - matched;
      else if (matched === 2 && c === GT) end = j - 2;
      else if (matched === 3 && c !== GT) matched = c === DASH ? 1 : 0;
      else if (c === END.charCodeAt(matched)) {
        if (++matched === 4) end = j - 3;
      } else if (matched === 0) {
        const dash = s.indexOf('-', j + 1);
        if (dash === -1) break;
        j = dash;
        matched = 1;
      } else if (c !== END.charCodeAt(matched - 1)) matched = 0;
      if (end !== -1) {
        this.out.oncomment(s.slice(start, end));
        this.out.oncommentend();
        this.i = j + 1;
        return;
      }
    }
    throw STOP;
  }
}

/** Whether `s` at `at` spells `name` (lower-case ASCII letters) in any case. */
function sameLetters(s: string, at: number, name: string): boolean {
  for (let k = 0; k < name.length; k++) {
    if ((s.charCodeAt(at + k) | 0x20) !== name.charCodeAt(k)) return false;
  }
  return true;
}

/**
 * Sends `events` the tree of `html`, or answers false as soon as the markup holds something only htmlparser2
 * reads (the events sent until then are to be thrown away with their handler).
 */
export function buildTree(html: string, events: TreeEvents): boolean {
  try {
    new TreeBuilder(html, events).build();
    return true;
  } catch (err) {
    if (err === STOP) return false;
    throw err;
  }
}
