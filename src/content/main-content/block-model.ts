import type { PageKind } from './page-kind.js';
import { treeCode } from './tree-code.js';
import type { TreeCode } from './tree-code.js';

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

const compiled = new WeakMap<TreeModel, TreeCode>();

/** A model's trees as code (tree-code.ts), made once per model in each thread after checking their shape. */
function compile(model: TreeModel): TreeCode {
  let code = compiled.get(model);
  if (!code) {
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
    code = treeCode(model);
    compiled.set(model, code);
  }
  return code;
}

/**
 * The probability that each row of `features` (`model.features.length` values a row) is main content;
 * with `only`, just the rows it marks (the others read 0), for callers that will not look at the rest.
 */
export function predict(model: TreeModel, features: Float32Array, only?: Uint8Array): Float32Array {
  const { memory, score } = compile(model);
  const width = model.features.length;
  const rows = features.length / width;
  // The code's memory holds the features, then each row's sum, then which rows to score.
  const sumsAt = Math.ceil(features.byteLength / 8) * 8;
  const onlyAt = sumsAt + rows * 8;
  const bytes = onlyAt + rows;
  if (memory.buffer.byteLength < bytes) memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / 65_536));
  new Float32Array(memory.buffer, 0, features.length).set(features);
  const sums = new Float64Array(memory.buffer, sumsAt, rows).fill(model.base);
  const scored = new Uint8Array(memory.buffer, onlyAt, rows);
  if (only) scored.set(only);
  else scored.fill(1);
  score(0, rows, width * 4, sumsAt, onlyAt);
  const out = new Float32Array(rows);
  for (let r = 0; r < rows; r++) if (scored[r]) out[r] = 1 / (1 + Math.exp(-sums[r]!));
  return out;
}
