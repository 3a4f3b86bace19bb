import { Gate } from './gate.js';

/**
 * Maps `items` through `fn` with at most `limit` calls in flight (a Gate, the service's one concurrency
 * primitive); results come back in input order. Used by extract batches, search result scrapes and llms.txt
 * pages. A call that throws stops new calls from starting and the map rejects with that error once the calls
 * in flight settle, so callers that want per-item failures return them as values from `fn`.
 */
export async function mapWithLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const gate = new Gate('map', Math.max(1, Math.floor(limit)), Number.POSITIVE_INFINITY);
  const results = new Array<R>(items.length);
  let failure: { error: unknown } | null = null;
  await Promise.all(
    items.map((item, index) =>
      gate.run(async () => {
        if (failure !== null) return;
        try {
          results[index] = await fn(item, index);
        } catch (error) {
          failure ??= { error };
        }
      }),
    ),
  );
  if (failure !== null) throw (failure as { error: unknown }).error;
  return results;
}
