// Gradient-boosted trees for binary labels (log loss), fitted as the service's block model reads them
// (src/content/main-content/block-model.ts): complete binary trees of fixed depth, split on histogram bins of each feature.
// Small and deterministic: the same corpus and options give the same trees.
import type { TreeModel } from '../src/content/main-content/block-model.js';

export interface FitOptions {
  trees: number;
  depth: number;
  learningRate: number;
  /** Share of rows each tree sees. */
  subsample: number;
  /** Share of features each tree may split on. */
  colsample: number;
  /** L2 regularisation of leaf values, in the units of the weights (mean weight 1). */
  lambda: number;
  /** Least total hessian on each side of a split. */
  minChild: number;
  bins: number;
}

export const DEFAULT_FIT: FitOptions = {
  trees: 200,
  depth: 4,
  learningRate: 0.1,
  subsample: 0.6,
  colsample: 1,
  lambda: 5,
  minChild: 20,
  bins: 64,
};

const NO_SPLIT = 1e30;

/** A small deterministic generator (mulberry32), so that a fit can be repeated. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Up to `bins - 1` cut points per feature from its sorted distinct values (by quantile). */
function cutPoints(x: Float32Array, rows: Uint32Array, featureCount: number, bins: number): Float32Array[] {
  const cuts: Float32Array[] = [];
  for (let f = 0; f < featureCount; f++) {
    const values = Float32Array.from(rows, (r) => x[r * featureCount + f]!).sort();
    const points: number[] = [];
    for (let b = 1; b < bins; b++) {
      const v = values[Math.floor((b * values.length) / bins)]!;
      // A cut sits between distinct values: rows with exactly v go left.
      if (points.length === 0 || v > points[points.length - 1]!) points.push(v);
    }
    if (points.length > 0 && points[points.length - 1]! >= values[values.length - 1]!) points.pop();
    cuts.push(Float32Array.from(points));
  }
  return cuts;
}

/** Fits trees on `rows` of `x` (row-major, `featureCount` wide) with labels `y` and weights `w`. */
export function fit(
  x: Float32Array,
  y: ArrayLike<number>,
  w: Float32Array,
  rows: Uint32Array,
  features: readonly string[],
  options: FitOptions = DEFAULT_FIT,
  seed = 1,
): Omit<TreeModel, 'thresholds'> {
  const F = features.length;
  const n = rows.length;
  const next = random(seed);
  const cuts = cutPoints(
    x,
    rows.filter(() => next() < Math.min(1, 200_000 / n)),
    F,
    options.bins,
  );
  const nb = options.bins;
  // Bin of every (row, feature): the first cut the value does not exceed.
  const bin = new Uint8Array(n * F);
  for (let i = 0; i < n; i++) {
    const offset = rows[i]! * F;
    for (let f = 0; f < F; f++) {
      const c = cuts[f]!;
      const v = x[offset + f]!;
      let lo = 0;
      let hi = c.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (v > c[mid]!) lo = mid + 1;
        else hi = mid;
      }
      bin[i * F + f] = lo;
    }
  }
  let positive = 0;
  let total = 0;
  for (let i = 0; i < n; i++) {
    positive += y[rows[i]!]! * w[rows[i]!]!;
    total += w[rows[i]!]!;
  }
  const prior = Math.min(0.99, Math.max(0.01, positive / total));
  const base = Math.log(prior / (1 - prior));
  const score = new Float64Array(n).fill(base);
  const g = new Float64Array(n);
  const h = new Float64Array(n);
  const node = new Int32Array(n);
  const inner = (1 << options.depth) - 1;
  const trees: TreeModel['trees'][number][] = [];
  for (let t = 0; t < options.trees; t++) {
    const sampled: number[] = [];
    for (let i = 0; i < n; i++) {
      const p = 1 / (1 + Math.exp(-score[i]!));
      const weight = w[rows[i]!]!;
      g[i] = weight * (p - y[rows[i]!]!);
      h[i] = weight * Math.max(p * (1 - p), 1e-6);
      node[i] = 0;
      if (next() < options.subsample) sampled.push(i);
    }
    const usable = Array.from({ length: F }, () => options.colsample >= 1 || next() < options.colsample);
    const split = new Array<number>(inner).fill(0);
    const at = new Array<number>(inner).fill(NO_SPLIT);
    for (let level = 0; level < options.depth; level++) {
      const first = (1 << level) - 1;
      const width = 1 << level;
      const G = new Float64Array(width * F * nb);
      const H = new Float64Array(width * F * nb);
      for (const i of sampled) {
        const k = node[i]! - first;
        const gi = g[i]!;
        const hi = h[i]!;
        const rowBins = i * F;
        const base = k * F * nb;
        for (let f = 0; f < F; f++) {
          const cell = base + f * nb + bin[rowBins + f]!;
          G[cell] = G[cell]! + gi;
          H[cell] = H[cell]! + hi;
        }
      }
      const binCut = new Int32Array(width).fill(-1);
      for (let k = 0; k < width; k++) {
        let bestGain = 0;
        for (let f = 0; f < F; f++) {
          if (!usable[f]) continue;
          const offset = (k * F + f) * nb;
          let gSum = 0;
          let hSum = 0;
          for (let b = 0; b < nb; b++) {
            gSum += G[offset + b]!;
            hSum += H[offset + b]!;
          }
          const parent = (gSum * gSum) / (hSum + options.lambda);
          let gl = 0;
          let hl = 0;
          for (let b = 0; b < cuts[f]!.length; b++) {
            gl += G[offset + b]!;
            hl += H[offset + b]!;
            const hr = hSum - hl;
            if (hl < options.minChild || hr < options.minChild) continue;
            const gr = gSum - gl;
            const gain = (gl * gl) / (hl + options.lambda) + (gr * gr) / (hr + options.lambda) - parent;
            if (gain > bestGain) {
              bestGain = gain;
              split[first + k] = f;
              at[first + k] = cuts[f]![b]!;
              binCut[k] = b;
            }
          }
        }
      }
      for (let i = 0; i < n; i++) {
        const k = node[i]! - first;
        const right = binCut[k]! >= 0 && bin[i * F + split[node[i]!]!]! > binCut[k]!;
        node[i] = 2 * node[i]! + (right ? 2 : 1);
      }
    }
    const leafG = new Float64Array(inner + 1);
    const leafH = new Float64Array(inner + 1);
    for (const i of sampled) {
      const j = node[i]! - inner;
      leafG[j] = leafG[j]! + g[i]!;
      leafH[j] = leafH[j]! + h[i]!;
    }
    const leaf = Array.from(leafG, (lg, j) => (-lg / (leafH[j]! + options.lambda)) * options.learningRate);
    for (let i = 0; i < n; i++) score[i] = score[i]! + leaf[node[i]! - inner]!;
    trees.push({ split, at, leaf });
  }
  return { features, depth: options.depth, base, trees };
}
