import type { Element } from '../parse/dom.js';
import { parentElement } from '../parse/dom.js';
import { FEATURE_COUNT, FEATURE_NAMES } from './block-features.js';

/** What the second stage adds to each block's features: the first stage's verdicts around it. */
export const CONTEXT_NAMES = [
  'p',
  'pPrev',
  'pNext',
  'pWindow3',
  'pWindow10',
  'pParent',
  'pGrandparent',
  'pGreat',
  'logBlocksUnderGreat',
  'pPage',
  'pageShareAboveHalf',
] as const;
export const CONTEXT_FEATURES: readonly string[] = [...FEATURE_NAMES, ...CONTEXT_NAMES];
const WIDTH = CONTEXT_FEATURES.length;
const LOG_OWN_TEXT = FEATURE_NAMES.indexOf('logOwnText');

/**
 * For each block, ids of its parent, grandparent and great-grandparent (-1 where there is none), ids shared
 * by blocks under the same element: what the context stage needs of the tree.
 */
export function containersOf(elements: readonly Element[]): Int32Array {
  const ids = new Map<Element, number>();
  const out = new Int32Array(elements.length * 3).fill(-1);
  // Blocks in a row mostly share their containers (paragraphs of one article): the last block's, level by
  // level, are answered without a lookup.
  const last: (Element | null)[] = [null, null, null];
  const lastId = [-1, -1, -1];
  elements.forEach((el, i) => {
    let a: Element | null = el;
    for (let level = 0; level < 3; level++) {
      a = a && parentElement(a);
      if (!a) break;
      let id: number | undefined;
      if (a === last[level]) id = lastId[level]!;
      else {
        id = ids.get(a);
        if (id === undefined) ids.set(a, (id = ids.size));
        last[level] = a;
        lastId[level] = id;
      }
      out[i * 3 + level] = id;
    }
  });
  return out;
}

/**
 * Each block's features followed by the first stage's probabilities around it, weighted by text: the
 * blocks just before and after, windows of 3 and 10 blocks each way, every block under its parent,
 * grandparent and great-grandparent, and the whole page. Linear: a prefix sum for the windows, three
 * containers per block.
 */
export function contextFeatures(
  features: Float32Array,
  containers: Int32Array,
  p: Float32Array,
): Float32Array {
  const n = p.length;
  // A loop, not Float64Array.from with a map: that reads its source as a generic iterable, five times slower.
  const weight = new Float64Array(n);
  for (let i = 0; i < n; i++) weight[i] = Math.expm1(features[i * FEATURE_COUNT + LOG_OWN_TEXT]!) + 1;
  const prefixW = new Float64Array(n + 1);
  const prefixP = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    prefixW[i + 1] = prefixW[i]! + weight[i]!;
    prefixP[i + 1] = prefixP[i]! + weight[i]! * p[i]!;
  }
  const windowMean = (i: number, k: number): number => {
    const lo = Math.max(0, i - k);
    const hi = Math.min(n, i + k + 1);
    return (prefixP[hi]! - prefixP[lo]!) / Math.max(1e-9, prefixW[hi]! - prefixW[lo]!);
  };
  const containerCount = containers.reduce((m, id) => Math.max(m, id + 1), 0);
  const sumW = new Float64Array(containerCount);
  const sumP = new Float64Array(containerCount);
  const count = new Int32Array(containerCount);
  for (let i = 0; i < n; i++) {
    for (let level = 0; level < 3; level++) {
      const id = containers[i * 3 + level]!;
      if (id < 0) continue;
      sumW[id] = sumW[id]! + weight[i]!;
      sumP[id] = sumP[id]! + weight[i]! * p[i]!;
      count[id] = count[id]! + 1;
    }
  }
  const total = prefixW[n]!;
  const pageMean = prefixP[n]! / Math.max(1e-9, total);
  let above = 0;
  for (let i = 0; i < n; i++) if (p[i]! >= 0.5) above += weight[i]!;
  const out = new Float32Array(n * WIDTH);
  const pageAbove = above / Math.max(1e-9, total);
  for (let i = 0; i < n; i++) {
    out.set(features.subarray(i * FEATURE_COUNT, (i + 1) * FEATURE_COUNT), i * WIDTH);
    const great = containers[i * 3 + 2]!;
    let k = i * WIDTH + FEATURE_COUNT;
    out[k++] = p[i]!;
    out[k++] = i > 0 ? p[i - 1]! : 0;
    out[k++] = i + 1 < n ? p[i + 1]! : 0;
    out[k++] = windowMean(i, 3);
    out[k++] = windowMean(i, 10);
    for (let level = 0; level < 3; level++) {
      const id = containers[i * 3 + level]!;
      out[k++] = id >= 0 ? sumP[id]! / sumW[id]! : p[i]!;
    }
    out[k++] = Math.log1p(great >= 0 ? count[great]! : 0);
    out[k++] = pageMean;
    out[k++] = pageAbove;
  }
  return out;
}
