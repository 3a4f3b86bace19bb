import { RE2JS, RE2Set } from 're2js';
import { BadRequestError } from '../errors.js';

/**
 * Instructions one caller pattern may compile to (RE2's measure of a pattern's size). Matching reads each
 * character once but may step every live instruction for it, so the size bounds the cost per character:
 * at this limit the costliest shapes measured on a 2-core machine (`[ab]*a[ab]{494}$`, `.{490}`,
 * `[\p{L}\p{N}]{480}`) compile in under 15 ms. Everyday patterns (`^/blog/.*`, a date, a UUID) need 10 to 60.
 */
export const MAX_PATTERN_INSTRUCTIONS = 500;

/**
 * Instructions of a whole list (a crawl's includePaths): one automaton runs them all, and its cost per
 * character grows with the total. At this limit the costliest lists measured on a 2-core machine test a
 * 200-character URL in under 50 ms and a 2,048-character one in about 100 ms at worst (a backtracking
 * engine takes hours on 40 characters); 50 globs such as `/docs/**` need 700.
 */
export const MAX_LIST_INSTRUCTIONS = 1_000;

/**
 * Memory the lazy DFA of one compiled pattern or list may hold by default (a list of 100 globs needs about
 * 1 MB to stay warm). Past it the engine starts over or falls back to its NFA, still linear: a pattern
 * whose DFA would be huge costs time, never memory.
 */
const DFA_MEMORY = 1024 * 1024;

/** A caller's regular expression, run with RE2 semantics: linear in the subject, never backtracking. */
export interface LinearRegex {
  readonly source: string;
  /** RE2 instructions: the cost per character of `test`. */
  readonly instructions: number;
  /** Whether the pattern matches anywhere in `subject` (like RegExp.prototype.test). */
  test(subject: string): boolean;
}

/** How patterns are written: JavaScript syntax (callers), or RE2 syntax already (our own compilers). */
export interface PatternOptions {
  /** JavaScript flags: i, m, s (u is implied). */
  flags?: string;
  syntax?: 'js' | 're2';
  /** Bytes the DFA may hold (default 1 MB). */
  dfaMemory?: number;
}

/** Constructs of JavaScript regexes that need backtracking, named for the 400 that refuses them. */
function backtrackingConstruct(pattern: string): string | null {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return `backreference \\${next}`;
      if (!inClass && next === 'k' && pattern[i + 2] === '<') return 'named backreference \\k<...>';
      i++;
    } else if (inClass) {
      if (ch === ']') inClass = false;
    } else if (ch === '[') {
      inClass = true;
      if (pattern[i + 1] === '^') i++;
      if (pattern[i + 1] === ']') i++; // "[]" and "[^]" are JavaScript's empty and any-character classes
    } else if (ch === '(' && pattern[i + 1] === '?') {
      const head = pattern.slice(i + 2, i + 4);
      if (head.startsWith('=') || head.startsWith('!')) return `lookahead (?${head[0]}`;
      if (head === '<=' || head === '<!') return `lookbehind (?${head}`;
    }
  }
  return null;
}

/**
 * A JavaScript pattern in RE2 syntax: JavaScript-only spellings that RE2 can run (`\uXXXX`, `\u{...}`,
 * `(?<name>...)`, `[^]`, `\cX`) are rewritten; lookarounds and backreferences are refused.
 */
function toRe2(pattern: string, flags: string, field: string): string {
  const construct = backtrackingConstruct(pattern);
  if (construct) {
    throw new BadRequestError(
      `${field}: ${construct} is not supported: patterns run on a linear-time engine (RE2 syntax), without lookarounds or backreferences`,
    );
  }
  const unknown = flags.replace(/[imsu]/g, '');
  if (unknown) throw new BadRequestError(`${field}: regular expression flag '${unknown}' is not supported`);
  const inline = flags.replace(/u/g, '');
  return (inline ? `(?${inline})` : '') + RE2JS.translateRegExp(pattern);
}

function tooComplex(field: string, instructions: number, max: number): BadRequestError {
  return new BadRequestError(
    `${field}: pattern too complex (${instructions} instructions, at most ${max}); write a simpler pattern`,
  );
}

function compileSet(sources: readonly string[], anchored: boolean, memory = DFA_MEMORY): RE2Set {
  const set = new RE2Set(anchored ? RE2Set.ANCHOR_START : RE2Set.UNANCHORED, 0, memory);
  for (const source of sources) set.add(source);
  set.compile();
  return set;
}

/** One pattern compiled alone, for its own errors and size. */
function checked(pattern: string, field: string, options: PatternOptions, anchored = false) {
  const source = options.syntax === 're2' ? pattern : toRe2(pattern, options.flags ?? '', field);
  let set: RE2Set;
  try {
    set = compileSet([source], anchored, options.dfaMemory);
  } catch (err) {
    const reason = (err instanceof Error ? err.message : String(err)).replace(/^error parsing regexp: /, '');
    throw new BadRequestError(`${field}: invalid regular expression: ${reason}`);
  }
  const instructions = set.prog.numInst();
  if (instructions > MAX_PATTERN_INSTRUCTIONS)
    throw tooComplex(field, instructions, MAX_PATTERN_INSTRUCTIONS);
  return { source, instructions, set };
}

/** Compiles one caller pattern; a pattern the engine cannot run is a 400 naming `field`. */
export function compileLinear(pattern: string, field: string, options: PatternOptions = {}): LinearRegex {
  const { set, instructions } = checked(pattern, field, options);
  return { source: pattern, instructions, test: (subject) => set.match(subject).length > 0 };
}

/**
 * Several patterns compiled into one automaton: a subject is read once for all of them. Each pattern is
 * checked alone first, so a 400 names the one at fault (`includePaths[2]: ...`).
 */
export class LinearRegexList {
  private constructor(private readonly set: RE2Set | null) {}

  /** `anchored`: every pattern matches from the start of the subject (a smaller automaton). */
  static compile(
    patterns: readonly string[],
    field: string,
    options: PatternOptions & { anchored?: boolean } = {},
  ): LinearRegexList {
    if (patterns.length === 0) return new LinearRegexList(null);
    const anchored = options.anchored ?? false;
    const each = patterns.map((pattern, i) => checked(pattern, `${field}[${i}]`, options, anchored));
    const instructions = each.reduce((sum, p) => sum + p.instructions, 0);
    if (instructions > MAX_LIST_INSTRUCTIONS) throw tooComplex(field, instructions, MAX_LIST_INSTRUCTIONS);
    const set =
      each.length === 1
        ? each[0]!.set
        : compileSet(
            each.map((p) => p.source),
            anchored,
            options.dfaMemory,
          );
    return new LinearRegexList(set);
  }

  /** Indexes of the patterns that match in `subject` (anywhere, or from its start when anchored). */
  matching(subject: string): number[] {
    return this.set ? this.set.match(subject) : [];
  }

  /** Whether any pattern matches. */
  test(subject: string): boolean {
    return this.matching(subject).length > 0;
  }
}
