import { RE2JS } from 're2js';

/**
 * The regular expression a glob compiles to, as a tree. `guard` is picomatch's `(?=.)` ("the path goes on
 * past this point"), which RE2 cannot express; `anchored()` rewrites it away before rendering.
 */
export type Rx =
  | { k: 'lit'; s: string }
  /** One character: an RE2 class such as `[^/]`. */
  | { k: 'class'; re: string }
  /** Any run of characters other than `/`. */
  | { k: 'star' }
  /** Any run of characters, `/` included. */
  | { k: 'any' }
  /** The end of the path. */
  | { k: 'end' }
  | { k: 'guard' }
  | { k: 'opt'; n: Rx }
  | { k: 'seq'; ns: Rx[] }
  | { k: 'alt'; ns: Rx[] };

export const EMPTY: Rx = { k: 'seq', ns: [] };
/** Matches nothing (an alternation without branches). */
const NEVER: Rx = { k: 'alt', ns: [] };
const isNever = (n: Rx): boolean => n.k === 'alt' && n.ns.length === 0;

export const lit = (s: string): Rx => ({ k: 'lit', s });

export function seq(ns: Rx[]): Rx {
  const flat: Rx[] = [];
  for (const n of ns) {
    if (isNever(n)) return NEVER;
    if (n.k === 'seq') flat.push(...n.ns);
    else flat.push(n);
  }
  return flat.length === 1 ? flat[0]! : { k: 'seq', ns: flat };
}

export function alt(ns: Rx[]): Rx {
  const kept = ns.filter((n) => !isNever(n));
  return kept.length === 1 ? kept[0]! : { k: 'alt', ns: kept };
}

function hasGuard(n: Rx): boolean {
  if (n.k === 'guard') return true;
  if (n.k === 'opt') return hasGuard(n.n);
  if (n.k === 'seq' || n.k === 'alt') return n.ns.some(hasGuard);
  return false;
}

const empties = new WeakMap<Rx, Rx>();
const nonEmpties = new WeakMap<Rx, Rx>();

/** The part of `n` that matches the empty string (keeping its `$`), or NEVER. */
function emptyPart(n: Rx): Rx {
  let out = empties.get(n);
  if (out) return out;
  switch (n.k) {
    case 'lit':
    case 'class':
      out = NEVER;
      break;
    case 'end':
      out = n;
      break;
    case 'seq':
      out = seq(n.ns.map(emptyPart));
      break;
    case 'alt':
      out = alt(n.ns.map(emptyPart));
      break;
    default:
      out = EMPTY;
  }
  empties.set(n, out);
  return out;
}

/**
 * `n` restricted to matches that consume at least one character (`n` holds no guard). A sequence consumes
 * when some part does and the parts before it match empty: one branch per part, up to the first part that
 * cannot match empty. Results are kept per node, as trees share parts.
 */
function nonEmpty(n: Rx): Rx {
  let out = nonEmpties.get(n);
  if (out) return out;
  if (isNever(emptyPart(n))) return n;
  switch (n.k) {
    case 'lit':
    case 'class':
      out = n;
      break;
    case 'star':
      out = seq([{ k: 'class', re: '[^/]' }, n]);
      break;
    case 'any':
      out = seq([{ k: 'class', re: '(?s:.)' }, n]);
      break;
    case 'opt':
      out = nonEmpty(n.n);
      break;
    case 'alt':
      out = alt(n.ns.map(nonEmpty));
      break;
    case 'seq': {
      const branches: Rx[] = [];
      const before: Rx[] = [];
      for (const [i, part] of n.ns.entries()) {
        branches.push(seq([...before, nonEmpty(part), ...n.ns.slice(i + 1)]));
        const empty = emptyPart(part);
        if (isNever(empty)) break;
        before.push(empty);
      }
      out = alt(branches);
      break;
    }
    default:
      out = NEVER;
  }
  nonEmpties.set(n, out);
  return out;
}

/** `n` followed by `next`, with the guards of `n` rewritten (`next` holds none). */
function followedBy(n: Rx, next: Rx): Rx {
  if (!hasGuard(n)) return seq([n, next]);
  switch (n.k) {
    case 'guard':
      return nonEmpty(next);
    case 'seq':
      return n.ns.reduceRight((rest, part) => followedBy(part, rest), next);
    case 'alt':
      return alt(n.ns.map((branch) => followedBy(branch, next)));
    case 'opt':
      return alt([followedBy(n.n, next), next]);
    default:
      return seq([n, next]);
  }
}

/** Thrown when a glob's regular expression grows past the budget (guards copy what follows them). */
export class RegexTooLarge extends Error {}

function render(n: Rx, budget: { left: number }): string {
  if ((budget.left -= 1) < 0) throw new RegexTooLarge();
  switch (n.k) {
    case 'lit':
      return RE2JS.quote(n.s);
    case 'class':
      return n.re;
    case 'star':
      return '[^/]*';
    case 'any':
      return '(?s:.*)';
    case 'end':
      return '$';
    case 'opt':
      return `(?:${render(n.n, budget)})?`;
    case 'seq':
      return n.ns.map((part) => render(part, budget)).join('');
    case 'alt':
      return n.ns.length === 0
        ? '[^\\x00-\\x{10FFFF}]'
        : `(?:${n.ns.map((b) => render(b, budget)).join('|')})`;
    case 'guard':
      throw new Error('guard left in a glob regex');
  }
}

/** RE2 source matching the whole path against `n`; throws RegexTooLarge past `maxNodes`. */
export function anchored(n: Rx, maxNodes: number): string {
  return `^${render(followedBy(n, { k: 'end' }), { left: maxNodes })}`;
}
