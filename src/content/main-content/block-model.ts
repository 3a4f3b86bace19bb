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

/** Adds its trees' leaves for the row at `offset` of `features` to `sums[r]` (no number boxed per call). */
export type Scorer = (features: Float32Array, offset: number, sums: Float64Array, r: number) => void;
const compiled = new WeakMap<TreeModel, readonly Scorer[]>();
const TREES_PER_FUNCTION = 16;
/**
 * The generated functions' name, which `npm start`'s `--maglev-filter=-modelTrees` keeps from Maglev: its
 * compiles of them held 15–60 MB per isolate for the life of the process, where TurboFan alone compiles them to
 * code as fast.
 */
export const GENERATED_SCORER_NAME = 'modelTrees';

/**
 * A model's trees as code, made once per model: each tree a nested comparison of a row's features with its
 * thresholds as constants, the leaves added to the row's sum in the trees' order (the same additions, so the
 * same log-odds, as walking the trees' arrays). Read as data, a tree costs loads of its split, threshold and
 * leaf per level; as code the branches are immediates. Trees are grouped some per function so that each
 * stays small enough for V8 to optimise; predict runs each function over every row before the next.
 */
export function compileTrees(model: TreeModel): readonly Scorer[] {
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
        : `(f[o + ${tree.split[i]}] > ${constant(tree.at[i]!)} ? ${node(tree, 2 * i + 2)} : ${node(tree, 2 * i + 1)})`;
    const made: Scorer[] = [];
    for (let first = 0; first < model.trees.length; first += TREES_PER_FUNCTION) {
      const body = model.trees
        .slice(first, first + TREES_PER_FUNCTION)
        .map((tree) => `s += ${node(tree, 0)};`)
        .join('\n');
      // Code made from the shipped model's numbers only, never from a caller's input. A float32 feature
      // is widened to its exact double before it meets a threshold.
      const code = `let s = sums[r];\n${body}\nsums[r] = s;`;
      made.push(
        new Function(`return function ${GENERATED_SCORER_NAME}(f, o, sums, r) {\n${code}\n};`)() as Scorer,
      );
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
  const scorers = compileTrees(model);
  const width = model.features.length;
  const rows = features.length / width;
  const sums = new Float64Array(rows).fill(model.base);
  // Tree-major: a page's rows take much the same paths through a tree, which the processor's branch
  // prediction learns while one function's trees run row after row (the first stage of a 222-block article
  // page in 0.13 ms where row by row took 0.28). A loop over the rows inside the generated functions is
  // 0.01 ms a page faster and 45 ms slower to compile in each isolate.
  for (const score of scorers)
    for (let r = 0; r < rows; r++) if (!only || only[r]) score(features, r * width, sums, r);
  const out = new Float32Array(rows);
  for (let r = 0; r < rows; r++) if (!only || only[r]) out[r] = 1 / (1 + Math.exp(-sums[r]!));
  return out;
}
