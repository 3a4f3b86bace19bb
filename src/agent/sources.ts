import type { AgentStep } from './steps.js';

/** Values shorter than this are too common to say where they came from. */
const MIN_CHARS = 3;

/** The strings and numbers inside a value (what a page's text can be searched for). */
function leaves(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') {
    if (value.trim().length >= MIN_CHARS) out.push(value.trim());
  } else if (typeof value === 'number' && Number.isFinite(value)) {
    if (String(value).length >= MIN_CHARS) out.push(String(value));
  } else if (Array.isArray(value)) {
    for (const v of value.slice(0, 500)) leaves(v, out);
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value).slice(0, 500)) leaves(v, out);
  }
  return out;
}

const squash = (text: string): string => text.toLowerCase().replace(/\s+/g, ' ');

/**
 * The pages each top-level field of `data` came from: the ones the model named (kept only when the run read
 * them), and every page read whose text holds one of the field's values.
 */
export function sourcesOf(
  data: unknown,
  steps: AgentStep[],
  named: { field: string; urls: string[] }[] = [],
): Record<string, string[]> {
  const read = new Map<string, string>();
  for (const step of steps) {
    if (step.type !== 'tool' || step.outcome !== 'ok') continue;
    for (const url of step.pages) read.set(url, `${read.get(url) ?? ''}\n${squash(step.output)}`);
  }
  const out: Record<string, string[]> = {};
  const add = (field: string, url: string): void => {
    const list = (out[field] ??= []);
    if (!list.includes(url)) list.push(url);
  };
  for (const { field, urls } of named) for (const url of urls) if (read.has(url)) add(field, url);
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    for (const [field, value] of Object.entries(data)) {
      const wanted = leaves(value).map(squash);
      for (const [url, text] of read) if (wanted.some((w) => text.includes(w))) add(field, url);
    }
  }
  return out;
}
