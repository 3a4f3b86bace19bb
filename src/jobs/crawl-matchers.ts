import { globMatcher, regexMatcher } from '../crawl/scope.js';
import type { ScopeOptions } from '../crawl/scope.js';
import type { CrawlSpec } from './crawl-run.js';

/** A crawl's include and exclude matchers, from its patterns as the surface that started it reads them. */
export function matchersFor(spec: CrawlSpec): Pick<ScopeOptions, 'include' | 'exclude'> {
  const { scope } = spec;
  if (scope.patterns === 'glob')
    return { include: globMatcher(scope.include), exclude: globMatcher(scope.exclude) };
  const full = scope.patternsOnFullUrl ?? false;
  return { include: regexMatcher(scope.include, full), exclude: regexMatcher(scope.exclude, full) };
}
