import { BadRequestError } from '../errors.js';
import { LinearRegexList } from '../lib/linear-regex.js';
import { EMPTY, RegexTooLarge, alt, anchored, lit, seq } from './glob-regex.js';
import type { Rx } from './glob-regex.js';

/**
 * Globs matched against a URL path, compiled to patterns for the linear-time engine. The answers are
 * picomatch's (`picomatch(globs, { dot: true })`, the library this replaces) for everything supported:
 * `*`, `**`, `?`, `[...]` classes, `{a,b}` braces, backslash escapes and a leading `!`; a differential test
 * holds the two together. Paths come from the URL parser, so they never hold `.` or `..` segments, and
 * picomatch's rules about dot segments never apply. What picomatch reads as regex syntax (extglobs such as
 * `+(a)`, groups, `|`, a `+` after a class) or reads in surprising ways is refused with a 400 naming the
 * field instead of being guessed at.
 */

/** Nodes one glob's regular expression may have once written out. */
const MAX_NODES = 20_000;

type Tok = 'bos' | 'text' | 'slash' | 'dot' | 'star' | 'globstar' | 'qmark' | 'bracket' | 'brace' | 'comma';

/** picomatch rewrites these whole globs first. */
const REPLACEMENTS: Record<string, string> = { '***': '*', '**/**': '**', '**/**/**': '**' };

const GUARD: Rx = { k: 'guard' };
const STAR: Rx = { k: 'star' };
const ANY: Rx = { k: 'any' };
const END: Rx = { k: 'end' };
const SLASH = lit('/');
const MAYBE_SLASH: Rx = { k: 'opt', n: SLASH };

class Refused extends Error {}
const refuse = (reason: string): never => {
  throw new Refused(reason);
};

/** picomatch's shortcuts for globs starting with `*` or `.` (`*.pdf`, `**`, `**\/*.html`...). */
function fastPath(input: string): Rx[] | undefined {
  const anyDirs: Rx = { k: 'opt', n: seq([ANY, SLASH]) };
  switch (input) {
    case '*':
      return [GUARD, STAR];
    case '.*':
      return [lit('.'), GUARD, STAR];
    case '*.*':
      return [STAR, lit('.'), GUARD, STAR];
    case '*/*':
      return [STAR, SLASH, GUARD, STAR];
    case '**':
      return [ANY];
    case '**/*':
      return [anyDirs, GUARD, STAR];
    case '**/*.*':
      return [anyDirs, STAR, lit('.'), GUARD, STAR];
    case '**/.*':
      return [anyDirs, lit('.'), GUARD, STAR];
  }
  const match = /^(.*?)\.(\w+)$/.exec(input);
  const head = match ? fastPath(match[1]!) : undefined;
  return head && [...head, lit(`.${match![2]}`)];
}

/** A JavaScript character class body (as picomatch hands it to RegExp) as an RE2 class. */
function classOf(body: string): string {
  const negated = body.startsWith('^');
  const atoms: { ch: number; raw: boolean }[] = [];
  const chars = [...(negated ? body.slice(1) : body)];
  for (let i = 0; i < chars.length; i++) {
    const escaped = chars[i] === '\\';
    if (escaped) i++;
    atoms.push({ ch: chars[i]!.codePointAt(0)!, raw: !escaped });
  }
  const hex = (c: number): string => `\\x{${c.toString(16)}}`;
  let out = '';
  for (let i = 0; i < atoms.length; i++) {
    const lo = atoms[i]!;
    const dash = atoms[i + 1];
    const hi = atoms[i + 2];
    if (dash && dash.raw && dash.ch === 0x2d && hi) {
      if (hi.ch < lo.ch) refuse('a class range runs backwards');
      out += `${hex(lo.ch)}-${hex(hi.ch)}`;
      i += 2;
    } else {
      out += hex(lo.ch);
    }
  }
  return `[${negated ? '^' : ''}${out}]`;
}

/** Reads picomatch's glob syntax into a regex tree; `refuse()`s what it does not support. */
class GlobParser {
  private i = 0;
  private start = 0;
  negated = false;
  private readonly top: Rx[] = [];
  /** Open braces: the alternatives read so far, and whether a comma was seen. */
  private readonly braces: { alts: Rx[][]; comma: boolean }[] = [];
  private readonly types: Tok[] = ['bos'];
  /** The last token was a `**` that turns into `*` unless a slash follows. */
  private loneGlobstar = false;

  constructor(private readonly input: string) {}

  private get prev(): Tok {
    return this.types[this.types.length - 1]!;
  }

  private get current(): Rx[] {
    const brace = this.braces[this.braces.length - 1];
    return brace ? brace.alts[brace.alts.length - 1]! : this.top;
  }

  private push(type: Tok, ...nodes: Rx[]): void {
    if (this.loneGlobstar && type !== 'slash') this.current.splice(-1, 1, STAR);
    this.loneGlobstar = false;
    this.current.push(...nodes);
    this.types.push(type);
  }

  parse(): Rx {
    const { input } = this;
    while (this.i < input.length) {
      const ch = input[this.i]!;
      const next = input[this.i + 1];
      if ('+*?@!'.includes(ch) && next === '(') refuse('extglob patterns are not supported');
      if (ch === '(' || ch === ')' || ch === '|')
        refuse(`'${ch}' is regex syntax in globs; escape it as \\${ch}`);
      if (ch === '"') refuse('quoted globs are not supported; escape characters with \\');
      if (ch === '\u0000') refuse('NUL characters are not supported');
      if (ch === '\\') this.escape(next);
      else if (ch === '*') this.stars();
      else if (ch === '[') this.bracket();
      else if (ch === '{') this.openBrace();
      else if (ch === ',' && this.braces.length > 0) this.comma();
      else if (ch === '}' && this.braces.length > 0) this.closeBrace();
      else if (ch === '.') this.dot();
      else if (ch === '/') this.slash();
      else if (ch === '?') this.one('qmark', { k: 'class', re: '[^/]' });
      else if (ch === '!' && this.i === 0) this.negate();
      else if (ch === '+' && (this.prev === 'bracket' || this.prev === 'brace'))
        refuse("'+' after a class or brace repeats it in picomatch; escape it as \\+");
      else this.one(ch === ',' ? 'comma' : 'text', lit(ch));
    }
    if (this.braces.length > 0) refuse("unclosed '{'; escape it as \\{");
    if (this.prev === 'star' || this.prev === 'bracket') this.top.push(MAYBE_SLASH);
    return seq(this.top);
  }

  private one(type: Tok, node: Rx): void {
    this.push(type, node);
    this.i++;
  }

  private escape(next: string | undefined): void {
    if (next === undefined) refuse('a glob cannot end with a backslash');
    // picomatch drops the backslash before these and reads the character as if it were plain.
    if (next === '/' || next === '.' || next === ';') {
      this.i++;
      return;
    }
    if (next === '\\' || /[A-Za-z0-9]/.test(next!))
      refuse(`'\\${next}' is not supported; escape only punctuation`);
    const char = String.fromCodePoint(this.input.codePointAt(this.i + 1)!);
    this.push('text', lit(char));
    this.i += 1 + char.length;
  }

  private negate(): void {
    const { input } = this;
    let count = 1;
    while (input[this.i + 1] === '!' && (input[this.i + 2] !== '(' || input[this.i + 3] === '?')) {
      this.i++;
      this.start++;
      count++;
    }
    if (count % 2 === 1) {
      this.negated = true;
      this.start++;
    }
    this.i++;
  }

  private dot(): void {
    const inBraces = this.braces.length > 0;
    if (inBraces && this.prev === 'dot') refuse('{a..b} ranges are not supported; list the values');
    const token = inBraces || this.prev === 'bos' || this.prev === 'slash';
    this.one(token ? 'dot' : 'text', lit('.'));
  }

  private slash(): void {
    // A leading "./" is dropped, as picomatch does.
    if (this.prev === 'dot' && this.i === this.start + 1 && this.braces.length === 0) {
      this.top.splice(-1, 1);
      this.types.splice(1);
      this.start = ++this.i;
      return;
    }
    this.one('slash', SLASH);
  }

  private stars(): void {
    const { input } = this;
    let count = 0;
    while (input[this.i + count] === '*') count++;
    const inBraces = this.braces.length > 0;
    if (inBraces && count > 1) refuse("'**' inside braces is not supported; write separate globs");
    if (inBraces && this.prev === 'dot') refuse("'.*' inside braces is not supported");
    const guarded = this.i === this.start || this.prev === 'slash' || this.prev === 'dot';
    const atSegmentStart = this.prev === 'slash' || this.prev === 'bos';
    if (count === 1) {
      this.push('star', ...(guarded ? [GUARD, STAR] : [STAR]));
      this.i += 1;
    } else if (count > 2 || !atSegmentStart) {
      this.push('star', STAR);
      this.i += count;
    } else {
      this.globstar();
    }
  }

  /** `**` after a slash or at the start: picomatch's globstar, whose meaning depends on what surrounds it. */
  private globstar(): void {
    const { input } = this;
    let rest = input.slice(this.i + 2);
    this.i += 2;
    while (rest.startsWith('/**') && (rest[3] === undefined || rest[3] === '/')) {
      rest = rest.slice(3);
      this.i += 3;
    }
    const priorPrev = this.types[this.types.length - 2] ?? 'bos';
    const afterStar = priorPrev === 'star' || priorPrev === 'globstar';
    const inner = this.prev === 'slash' && priorPrev !== 'bos';
    if (rest === '' && this.prev === 'bos') {
      this.push('globstar', ANY);
    } else if (rest === '' && inner && !afterStar) {
      this.replaceSlash(alt([seq([SLASH, ANY]), END]));
    } else if (rest.startsWith('/') && (inner || this.prev === 'bos')) {
      if (inner) this.replaceSlash(alt([seq([SLASH, ANY, SLASH]), SLASH, ...(rest.length > 1 ? [END] : [])]));
      else this.push('globstar', alt([EMPTY, SLASH, seq([ANY, SLASH])]));
      this.i++; // the slash is part of the globstar
      this.types.push('slash');
    } else {
      if (input[this.i] === '{') refuse("'**' before braces is not supported");
      this.push('globstar', ANY);
      this.loneGlobstar = true;
    }
  }

  private replaceSlash(node: Rx): void {
    if (this.top[this.top.length - 1] !== SLASH) refuse("this use of '**' is not supported");
    this.top.splice(-1, 1, node);
    this.types.push('globstar');
  }

  private bracket(): void {
    const { input } = this;
    if (!input.includes(']', this.i + 1)) {
      this.one('bracket', lit('['));
      return;
    }
    let body = '';
    let j = this.i + 1;
    for (; j < input.length; j++) {
      let ch = input[j]!;
      if (ch === ']' && body !== '' && body !== '^') break;
      if (ch === '\\') {
        const next = input[j + 1];
        if (next === undefined || next === '\\' || /[A-Za-z0-9]/.test(next))
          refuse(`'\\${next ?? ''}' is not supported in a class; escape only punctuation`);
        j++;
        ch = next === '/' || next === '.' || next === ';' ? next : `\\${next}`;
      } else if (ch === ':' && body.includes('[')) {
        refuse('POSIX classes such as [:alpha:] are not supported; use a range such as [a-zA-Z]');
      } else if (ch === '\u0000') {
        refuse('NUL characters are not supported');
      } else if ((ch === '[' && input[j + 1] !== ':') || (ch === '-' && input[j + 1] === ']') || ch === ']') {
        ch = `\\${ch}`;
      }
      body += ch;
    }
    if (j >= input.length) refuse("unclosed '['; escape it as \\[");
    const negatedClass = body.startsWith('^');
    const klass: Rx = {
      k: 'class',
      re: classOf(negatedClass && !body.includes('/') ? `${body}/` : body),
    };
    // picomatch also matches the bracket expression literally when it holds no regex characters.
    const literal = !/[-*+?.^${}(|)[\]]/.test(body);
    this.push('bracket', literal ? alt([lit(`[${body}]`), klass]) : klass);
    this.i = j + 1;
  }

  private openBrace(): void {
    if (this.prev === 'globstar') refuse("'**' before braces is not supported");
    this.push('brace');
    this.braces.push({ alts: [[]], comma: false });
    this.i++;
  }

  private comma(): void {
    const brace = this.braces[this.braces.length - 1]!;
    brace.comma = true;
    brace.alts.push([]);
    this.types.push('comma');
    this.loneGlobstar = false;
    this.i++;
  }

  private closeBrace(): void {
    const brace = this.braces.pop()!;
    const node = brace.comma
      ? alt(brace.alts.map((a) => seq(a)))
      : seq([lit('{'), seq(brace.alts[0]!), lit('}')]);
    this.push('brace', node);
    this.i++;
  }
}

/** One glob as RE2 source (whole-path match) and whether it is negated (a leading `!`). */
export function compileGlob(glob: string, field: string): { source: string; negated: boolean } {
  // picomatch rewrites a few whole globs and drops a leading "./" before anything else.
  const input = (REPLACEMENTS[glob] ?? glob).replace(/^\.\//, '');
  try {
    const fast = glob[0] === '.' || glob[0] === '*' ? fastPath(input) : undefined;
    if (fast) return { source: anchored(seq([...fast, MAYBE_SLASH]), MAX_NODES), negated: false };
    const parser = new GlobParser(input);
    const tree = parser.parse();
    return { source: anchored(tree, MAX_NODES), negated: parser.negated };
  } catch (err) {
    if (err instanceof Refused) throw new BadRequestError(`${field}: ${err.message}`);
    if (err instanceof RegexTooLarge) throw new BadRequestError(`${field}: glob too complex; simplify it`);
    throw err;
  }
}

/**
 * Globs as one matcher: a path matches when any glob does (a negated glob matches every path its glob
 * does not). The globs run as one automaton, reading the path once.
 */
export function globList(globs: readonly string[], field: string): (path: string) => boolean {
  const compiled = globs.map((glob, i) => compileGlob(glob, `${field}[${i}]`));
  const list = LinearRegexList.compile(
    compiled.map((c) => c.source),
    field,
    { syntax: 're2', anchored: true },
  );
  // picomatch also matches a path equal to the glob's own text.
  const verbatim = new Set(globs);
  const negated = compiled.flatMap((c, i) => (c.negated ? [i] : []));
  return (path) => {
    if (verbatim.has(path)) return true;
    const hits = list.matching(path);
    if (hits.some((i) => !compiled[i]!.negated)) return true;
    return negated.some((i) => !hits.includes(i));
  };
}
