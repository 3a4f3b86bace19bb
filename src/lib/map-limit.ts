/**
 * Maps `items` through `fn` with at most `limit` calls in flight; results come back in input order. This is
 * the service's one bounded-concurrency loop (extract batches, search result scrapes, llms.txt pages).
 * A call that throws stops new calls from starting and the map rejects with that error once the calls in
 * flight settle, so callers that want per-item failures return them as values from `fn`.
 */
export async function mapWithLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const lane = async (): Promise<void> => {
    while (next < items.length && failure === null) {
      const index = next++;
      try {
        results[index] = await fn(items[index]!, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const lanes = Math.max(1, Math.min(Math.floor(limit), items.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  if (failure !== null) throw (failure as { error: unknown }).error;
  return results;
}
