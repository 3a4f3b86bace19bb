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

/** A model's trees in flat typed arrays, made once per model: the hot loop reads no objects. */
interface Compiled {
  split: Int32Array;
  at: Float64Array;
  leaf: Float64Array;
}
const compiled = new WeakMap<TreeModel, Compiled>();

function compile(model: TreeModel): Compiled {
  let flat = compiled.get(model);
  if (!flat) {
    const inner = (1 << model.depth) - 1;
    flat = {
      split: Int32Array.from(model.trees.flatMap((t) => t.split)),
      at: Float64Array.from(model.trees.flatMap((t) => t.at)),
      leaf: Float64Array.from(model.trees.flatMap((t) => t.leaf)),
    };
    if (
      flat.split.length !== model.trees.length * inner ||
      flat.leaf.length !== model.trees.length * (inner + 1)
    )
      throw new Error('main-content model trees are not of its depth: retrain it');
    // A split on a feature past the row would read the next row's (or nothing) without a word.
    if (flat.split.some((feature) => feature < 0 || feature >= model.features.length))
      throw new Error('main-content model splits on a feature it does not have: retrain it');
    compiled.set(model, flat);
  }
  return flat;
}

/**
 * The probability that each row of `features` (`model.features.length` values a row) is main content;
 * with `only`, just the rows it marks (the others read 0), for callers that will not look at the rest.
 */
export function predict(model: TreeModel, features: Float32Array, only?: Uint8Array): Float32Array {
  const flat = compile(model);
  const width = model.features.length;
  const rows = features.length / width;
  const out = new Float32Array(rows);
  const score = model.depth === 4 ? scoreDepth4 : scoreAnyDepth;
  // One row's features as doubles, read by every tree, rather than converted from float32 at each read.
  const row = new Float64Array(width);
  for (let r = 0; r < rows; r++) {
    if (only && !only[r]) continue;
    const offset = r * width;
    for (let k = 0; k < width; k++) row[k] = features[offset + k]!;
    out[r] = 1 / (1 + Math.exp(-score(flat, model, row)));
  }
  return out;
}

/** One row's log-odds: the model's base plus the leaf each tree sends the row to, added in the trees' order. */
function scoreAnyDepth({ split, at, leaf }: Compiled, model: TreeModel, row: Float64Array): number {
  const inner = (1 << model.depth) - 1;
  let sum = model.base;
  // By tree: a tree of depth 0 has no split, only its leaf.
  for (
    let t = 0, first = 0, leaves = -inner;
    t < leaf.length / (inner + 1);
    t++, first += inner, leaves += inner + 1
  ) {
    let node = 0;
    while (node < inner) node = 2 * node + (row[split[first + node]!]! > at[first + node]! ? 2 : 1);
    sum += leaf[leaves + node]!;
  }
  return sum;
}

/** scoreAnyDepth for the shipped depth, unrolled: the loop's branch at each level doubled the time. */
function scoreDepth4({ split, at, leaf }: Compiled, model: TreeModel, row: Float64Array): number {
  let sum = model.base;
  for (let first = 0, leaves = -15; first < split.length; first += 15, leaves += 16) {
    let node = row[split[first]!]! > at[first]! ? 2 : 1;
    node = 2 * node + (row[split[first + node]!]! > at[first + node]! ? 2 : 1);
    node = 2 * node + (row[split[first + node]!]! > at[first + node]! ? 2 : 1);
    node = 2 * node + (row[split[first + node]!]! > at[first + node]! ? 2 : 1);
    sum += leaf[leaves + node]!;
  }
  return sum;
}
