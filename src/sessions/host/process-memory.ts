import { readFileSync } from 'node:fs';

const PAGE_BYTES = 4096;
/** Processes of one tree read at most (Chromium with a few hundred tabs has a few hundred). */
const MAX_PROCESSES = 2000;

/** The process and its descendants, from /proc's children lists (Linux); [] when the process is gone. */
export function processTree(pid: number): number[] {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0 && found.length < MAX_PROCESSES) {
    const next = queue.shift()!;
    let children: string;
    try {
      children = readFileSync(`/proc/${next}/task/${next}/children`, 'utf8');
    } catch {
      continue;
    }
    found.push(next);
    for (const child of children.split(' ')) if (child.trim()) queue.push(Number(child));
  }
  return found;
}

/**
 * Memory of one process in bytes: its proportional set size (shared pages divided among the processes sharing
 * them, so Chromium's code mapped by every renderer counts once in all), or its resident size where smaps is
 * not readable.
 */
function memoryOf(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const pss = /^Pss:\s+(\d+) kB/m.exec(rollup);
    if (pss) return Number(pss[1]) * 1024;
  } catch {
    // Not readable (another user's process) or gone: its resident size below.
  }
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE_BYTES;
  } catch {
    return 0;
  }
}

/** Memory of a process and all its descendants (or of `only` those of them), in bytes. */
export function treeMemory(pid: number, only?: readonly number[]): number {
  return (only ?? processTree(pid)).reduce((sum, p) => sum + memoryOf(p), 0);
}
