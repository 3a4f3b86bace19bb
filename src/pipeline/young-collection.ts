import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * A content worker collects its young generation between tasks, once it is half full, instead of when an
 * allocation fills it in the middle of a page. Mid-page, the page's tree and all that has been derived from it
 * are alive: the collection copies them, a second one moves them to the old generation, and a full collection
 * later marks them on V8's helper threads. Between tasks next to nothing is alive, so the same collection
 * copies almost nothing, and a page of typical size then runs from start to end without one.
 */
const COLLECT_AT_SHARE = 0.5;

type MinorCollection = (options: { type: 'minor' }) => void;

const collect = minorCollection();

/**
 * V8's `gc()`: the global a process started with `--expose-gc` already has, else one taken from a context made
 * while the flag is set for that moment only (contexts made later do not have it). Never handed to other code.
 * V8's flags are the process's: another worker starting at the same moment may unset the flag between this
 * one's setting it and making its context, hence a few attempts.
 */
function minorCollection(): MinorCollection | null {
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return own as MinorCollection;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      v8.setFlagsFromString('--expose-gc');
      const gc: unknown = vm.runInNewContext('gc');
      if (typeof gc === 'function') return gc as MinorCollection;
    } catch {
      return null;
    } finally {
      v8.setFlagsFromString('--no-expose-gc');
    }
  }
  return null;
}

/**
 * Collects the young generation now if more than COLLECT_AT_SHARE of the room it allocates in is used (that
 * room is one of its two semi-spaces; `space_size` counts both): call it between two tasks.
 */
export function collectBetweenTasks(): void {
  if (!collect) return;
  for (const space of v8.getHeapSpaceStatistics()) {
    if (space.space_name !== 'new_space') continue;
    const room = space.space_used_size + space.space_available_size;
    if (space.space_used_size > room * COLLECT_AT_SHARE) collect({ type: 'minor' });
    return;
  }
}
