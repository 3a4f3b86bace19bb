import type { Options } from 'ajv';
import { BadRequestError } from '../errors.js';
import { MAX_LIST_INSTRUCTIONS, compileLinear } from '../lib/linear-regex.js';

/**
 * A schema's `pattern` and `patternProperties` run on the linear-time engine (RE2 semantics), never on
 * JavaScript's backtracking RegExp: Ajv takes this as its `code.regExp` for every dialect.
 */

/**
 * Work one match may cost, in (string length x pattern instructions): about 40 ms on a 2-core machine at
 * worst (a 500-instruction pattern on 2,000 characters, or a 20-instruction one on 50,000). A longer string
 * does not match the pattern (an ordinary violation); `^[A-Z]{2}-\d+$` still reads 50,000 characters.
 */
export const MAX_PATTERN_WORK = 1_000_000;

/** Memory each pattern's DFA may keep (the compiled schema cache holds many patterns). */
const DFA_MEMORY = 64 * 1024;

let budget = MAX_LIST_INSTRUCTIONS;

/** Gives the next schema compile its own budget of pattern instructions (all its patterns together). */
export function resetPatternBudget(): void {
  budget = MAX_LIST_INSTRUCTIONS;
}

function linear(pattern: string, flags: string) {
  const field = `pattern '${pattern.length > 100 ? `${pattern.slice(0, 100)}...` : pattern}'`;
  const rx = compileLinear(pattern, field, { flags, dfaMemory: DFA_MEMORY });
  budget -= rx.instructions;
  if (budget < 0) {
    throw new BadRequestError(
      `the schema's patterns are too complex together (more than ${MAX_LIST_INSTRUCTIONS} instructions)`,
    );
  }
  return {
    test: (s: string): boolean => s.length * rx.instructions <= MAX_PATTERN_WORK && rx.test(s),
    // Ajv keys compiled patterns by this text.
    toString: (): string => `/${pattern}/${flags}`,
  };
}

type RegExpEngine = NonNullable<NonNullable<Options['code']>['regExp']>;

export const linearRegExp: RegExpEngine = Object.assign(linear, { code: 'linearRegExp' });
