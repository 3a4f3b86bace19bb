import { createTwoFilesPatch } from 'diff';

/** Markdown compared at most (characters): a diff costs time in the product of the sizes' differences. */
export const MAX_COMPARED_CHARS = 500_000;
/** A diff that takes longer is given up; the page's status (changed) is still answered. */
export const DIFF_TIMEOUT_MS = 500;

/**
 * A unified diff of two versions of a page's Markdown (each bounded to MAX_COMPARED_CHARS), or undefined when
 * it took longer than DIFF_TIMEOUT_MS. Change tracking runs it beside one page; monitors, with many pages a
 * check, in the content workers.
 */
export function markdownDiff(previous: string, current: string): string | undefined {
  return createTwoFilesPatch(
    'previous',
    'current',
    previous.slice(0, MAX_COMPARED_CHARS),
    current.slice(0, MAX_COMPARED_CHARS),
    undefined,
    undefined,
    { timeout: DIFF_TIMEOUT_MS },
  );
}

/** The Markdown a page is compared on: bounded as diffs are. */
export const comparedMarkdown = (markdown: string | undefined): string =>
  (markdown ?? '').slice(0, MAX_COMPARED_CHARS);
