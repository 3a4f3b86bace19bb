import type { PageKind } from './page-kind.js';

/**
 * Gradient-boosted trees over block features, each a complete binary tree of fixed depth stored flat: split
 * features and thresholds in breadth-first order, then the leaf values. A node that does not split sends
 * every row left (threshold +∞ as 1e30). Trained by scripts/train-main-content.ts.
 */
export interface TreeModel {
  /** The feature names the model was trained on, in order; checked at load. */
  features: readonly string[];
  depth: number;
  /** Log-odds before the first tree. */
  base: number;
  trees: readonly { split: readonly number[]; at: readonly number[]; leaf: readonly number[] }[];
}

/**
 * `model`: blocks whose probability is at least `at`; `within-rules`: those of the rules' choice whose
 * probability is at least `at` (the model only takes out); `rules`: the rules' choice as it is.
 */
export interface KeepRule {
  mode: 'model' | 'within-rules' | 'rules';
  at: number;
  /** In `model` mode, the probability at which a concealed block is revealed; absent: never. */
  reveal?: number;
  /**
   * In `model` mode, a bar relative to the page: a block this share as sure as the page's surest tenth of
   * text is kept even below `at` (main-content.ts, barOfPage); absent: `at` alone.
   */
  relative?: number;
}

/**
 * Two stages: `blocks` reads each block's own features; `context` reads them again beside the first
 * stage's probabilities around the block (neighbours, containers, the page), since main content comes in
 * runs. `keep` says per kind of page how the final probability keeps a block.
 */
export interface MainContentModel {
  blocks: TreeModel;
  context: TreeModel;
  keep: Readonly<Record<PageKind, KeepRule>>;
}

/** A model trained on other features would misread every row: refused at load. */
export function checkModel(model: TreeModel, features: readonly string[]): TreeModel {
  if (model.features.length !== features.length || model.features.some((f, i) => f !== features[i]))
    throw new Error('main-content model was trained on other block features: retrain it');
  return model;
}

/** Adds its trees' leaves for `row` to `sum[0]` (a double kept in an array: no number boxed per call). */
type Scorer = (row: Float64Array, sum: Float64Array) => void;
const compiled = new WeakMap<TreeModel, readonly Scorer[]>();
const TREES_PER_FUNCTION = 16;

/**
 * A model's trees as code, made once per model: each tree a nested comparison of its row's features with its
 * thresholds as constants, the leaves added to the sum in the trees' order (the same additions, so the same
 * log-odds, as walking the trees' arrays). Read as data, a tree costs loads of its split, threshold and leaf
 * per level; as code the branches are immediates (a page's blocks scored in 60 % of the time).
 * Trees are grouped some per function so that each stays small enough for V8 to optimise.
 */
function compile(model: TreeModel): readonly Scorer[] {
  let scorers = compiled.get(model);
  if (!scorers) {
    const inner = (1 << model.depth) - 1;
    for (const { split, at, leaf } of model.trees) {
      if (split.length !== inner || at.length !== inner || leaf.length !== inner + 1)
        throw new Error('main-content model trees are not of its depth: retrain it');
      // A split on a feature past the row would read the next row's (or nothing) without a word.
      if (
        split.some((feature) => !Number.isInteger(feature) || feature < 0 || feature >= model.features.length)
      )
        throw new Error('main-content model splits on a feature it does not have: retrain it');
    }
    // Numbers are written as JavaScript reads them back exactly (shortest round trip); ±∞ and NaN by name.
    const constant = (x: number): string =>
      Number.isFinite(x) ? String(x) : x > 0 ? 'Infinity' : x < 0 ? '-Infinity' : 'NaN';
    const node = (tree: TreeModel['trees'][number], i: number): string =>
      i >= inner
        ? constant(tree.leaf[i - inner]!)
        : `(row[${tree.split[i]}] > ${constant(tree.at[i]!)} ? ${node(tree, 2 * i + 2)} : ${node(tree, 2 * i + 1)})`;
    const made: Scorer[] = [];
    for (let first = 0; first < model.trees.length; first += TREES_PER_FUNCTION) {
      const body = model.trees
        .slice(first, first + TREES_PER_FUNCTION)
        .map((tree) => `sum += ${node(tree, 0)};`)
        .join('\n');
      // Code made from the shipped model's numbers only, never from a caller's input.
      made.push(new Function('row', 'total', `let sum = total[0];\n${body}\ntotal[0] = sum;`) as Scorer);
    }
    scorers = made;
    compiled.set(model, scorers);
  }
  return scorers;
}

/**
 * The probability that each row of `features` (`model.features.length` values a row) is main content;
 * with `only`, just the rows it marks (the others read 0), for callers that will not look at the rest.
 */
export function predict(model: TreeModel, features: Float32Array, only?: Uint8Array): Float32Array {
  const scorers = compile(model);
  const width = model.features.length;
  const rows = features.length / width;
  const out = new Float32Array(rows);
  // One row's features as doubles, read by every tree, rather than converted from float32 at each read.
  const row = new Float64Array(width);
  const sum = new Float64Array(1);
  for (let r = 0; r < rows; r++) {
    if (only && !only[r]) continue;
    const offset = r * width;
    for (let k = 0; k < width; k++) row[k] = features[offset + k]!;
    sum[0] = model.base;
    for (const score of scorers) score(row, sum);
    out[r] = 1 / (1 + Math.exp(-sum[0]!));
  }
  return out;
}
