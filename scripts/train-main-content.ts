// npm run train:main-content [-- --folds 5 --no-write | --ceiling]: fits the main-content block model on the shared
// fidelity corpora (../shared/fidelity: zyte articles and WCXB's seven kinds of page), estimates how it does
// on sites it never saw by cross-validation with every site's pages in one fold, picks the keep threshold
// from those held-out predictions, and writes src/content/main-content/block-model-weights.ts from a fit on every page.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FEATURE_COUNT, FEATURE_NAMES, codeAfterProse } from '../src/content/main-content/block-features.js';
import { CONTEXT_FEATURES, contextFeatures } from '../src/content/main-content/block-context.js';
import { predict } from '../src/content/main-content/block-model.js';
import { enoughKept, keepBlocks } from '../src/content/main-content/main-content.js';
import type { KeepRule, TreeModel } from '../src/content/main-content/block-model.js';
import type { KeepInputs } from '../src/content/main-content/main-content.js';
import { PAGE_KINDS } from '../src/content/main-content/page-kind.js';
import type { PageKind } from '../src/content/main-content/page-kind.js';
import { DEFAULT_FIT, fit } from './gbdt.js';
import { corpusScore, loadCorpus, pageScore } from './main-content-corpus.js';
import type { Corpus, Page } from './main-content-corpus.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const folds = option('folds', 5);
const fitOptions = {
  ...DEFAULT_FIT,
  trees: option('trees', DEFAULT_FIT.trees),
  depth: option('depth', DEFAULT_FIT.depth),
  learningRate: option('learning-rate', DEFAULT_FIT.learningRate),
  subsample: option('subsample', DEFAULT_FIT.subsample),
  colsample: option('colsample', DEFAULT_FIT.colsample),
  lambda: option('lambda', DEFAULT_FIT.lambda),
  minChild: option('min-child', DEFAULT_FIT.minChild),
};
// `--seed N` shifts every fit's row sampling: a refit's spread on unchanged features, which a change's
// held-out gain must exceed to count.
const SEED_OFFSET = option('seed', 0);
const ROOT = join(import.meta.dirname, '..');
const corpus = loadCorpus(join(ROOT, '..', 'shared', 'fidelity'), ['zyte', 'wcxb']);
console.log(`${corpus.pages.length} pages, ${corpus.labels.length} blocks, ${FEATURE_COUNT} features`);

const groupOf = (page: Page): string => (page.set === 'zyte' ? 'zyte' : page.type);

// `--ceiling`: what keeping exactly the blocks labelled as in the truth scores (their text, in page order), the
// most any choice of whole blocks can reach: below it are the truths' own choices inside blocks.
if (args.includes('--ceiling')) {
  const byGroup = new Map<string, ReturnType<typeof pageScore>[]>();
  for (const page of corpus.pages) {
    const kept = page.texts.filter((_, i) => corpus.labels[page.start + i] === 1).join('\n');
    byGroup.set(groupOf(page), [...(byGroup.get(groupOf(page)) ?? []), pageScore(page.truth, kept)]);
  }
  console.log('labelled blocks kept: F1 / P / R');
  for (const [group, scores] of byGroup) {
    const s = corpusScore(scores);
    console.log(`${group.padEnd(15)} ${s.f1.toFixed(3)} / ${s.p.toFixed(3)} / ${s.r.toFixed(3)}`);
  }
  process.exit(0);
}

/** A stable fold per site (FNV-1a of the host), so no site is in both a fit and its evaluation. */
const foldOf = (page: Page): number => {
  let hash = 0x811c9dc5;
  for (const c of page.host) hash = Math.imul(hash ^ c.charCodeAt(0), 0x01000193);
  return (hash >>> 0) % folds;
};

const rowsOf = (pages: Page[]): Uint32Array => {
  const rows: number[] = [];
  for (const page of pages) for (let r = page.start; r < page.end; r++) rows.push(r);
  return Uint32Array.from(rows);
};

// `--soft`: fit on each block's share of shingles in the truth instead of whether most are (tried: held out,
// WCXB 0.867 -> 0.869 at the trainer's own thresholds, within a refit's spread, the article set 0.971 -> 0.968).
const labelsOf = (c: Corpus): ArrayLike<number> => (args.includes('--soft') ? c.shares : c.labels);
const fitOn = (
  x: Float32Array,
  names: readonly string[],
  pages: Page[],
  c: Corpus,
  seed: number,
): TreeModel => fit(x, labelsOf(c), c.weights, rowsOf(pages), names, fitOptions, seed + SEED_OFFSET);

/** Held-out probabilities of a stage: of every block, and apart, of each page's concealed blocks. */
interface StagePredictions {
  blocks: Float32Array;
  concealed: Map<Page, Float32Array>;
}

/** Where each page's concealed blocks start in one array of them all, in page order. */
const concealedAt = new Map<Page, number>();
const concealedCount = corpus.pages.reduce(
  (at, page) => (concealedAt.set(page, at), at + page.concealed.texts.length),
  0,
);

/** The concealed blocks' predictions, cut per page from one array in page order. */
const concealedByPage = (all: Float32Array): Map<Page, Float32Array> =>
  new Map(
    corpus.pages.map((page) => {
      const at = concealedAt.get(page)!;
      return [page, all.subarray(at, at + page.concealed.texts.length)];
    }),
  );

/**
 * Held-out probabilities of every block for a stage: each fold's pages predicted by a fit on the other folds
 * (no site is in both); the same fit predicts the fold's concealed blocks (`concealedX`: their rows), which
 * are never trained on. Cached in `--held-out FILE.<stage>` between runs of the same corpus.
 */
function heldOutOf(
  stage: string,
  x: Float32Array,
  names: readonly string[],
  concealedX: (page: Page) => Float32Array,
): StagePredictions {
  const out = new Float32Array(corpus.labels.length);
  const concealed = new Float32Array(concealedCount);
  const cacheAt = args.indexOf('--held-out');
  const cache = cacheAt >= 0 ? `${args[cacheAt + 1]!}.${stage}` : null;
  if (cache && existsSync(cache) && existsSync(`${cache}.concealed`)) {
    const cached = new Float32Array(readFileSync(cache).buffer.slice(0));
    const cachedConcealed = new Float32Array(readFileSync(`${cache}.concealed`).buffer.slice(0));
    if (cached.length === out.length && cachedConcealed.length === concealed.length)
      return { blocks: cached, concealed: concealedByPage(cachedConcealed) };
  }
  const started = performance.now();
  const width = names.length;
  for (let k = 0; k < folds; k++) {
    const model = fitOn(
      x,
      names,
      corpus.pages.filter((p) => foldOf(p) !== k),
      corpus,
      k + 1,
    );
    for (const page of corpus.pages.filter((p) => foldOf(p) === k)) {
      out.set(predict(model, x.subarray(page.start * width, page.end * width)), page.start);
      if (page.concealed.texts.length > 0)
        concealed.set(predict(model, concealedX(page)), concealedAt.get(page)!);
    }
    console.log(`${stage}: fold ${k + 1}/${folds} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  if (cache) {
    writeFileSync(cache, Buffer.from(out.buffer));
    writeFileSync(`${cache}.concealed`, Buffer.from(concealed.buffer));
  }
  return { blocks: out, concealed: concealedByPage(concealed) };
}

/** The context stage's rows: every page's block features beside the first stage's held-out verdicts. */
function contextRows(first: Float32Array): Float32Array {
  const x = new Float32Array(corpus.labels.length * CONTEXT_FEATURES.length);
  for (const page of corpus.pages) {
    const rows = contextFeatures(
      corpus.features.subarray(page.start * FEATURE_COUNT, page.end * FEATURE_COUNT),
      page.containers,
      first.subarray(page.start, page.end),
    );
    x.set(rows, page.start * CONTEXT_FEATURES.length);
  }
  return x;
}

const firstStage = heldOutOf('blocks', corpus.features, FEATURE_NAMES, (page) => page.concealed.features);
const firstHeldOut = firstStage.blocks;
const contextX = contextRows(firstHeldOut);
const finalStage = args.includes('--one-stage')
  ? firstStage
  : heldOutOf('context', contextX, CONTEXT_FEATURES, (page) =>
      contextFeatures(page.concealed.features, page.concealed.containers, firstStage.concealed.get(page)!),
    );
const heldOut = finalStage.blocks;

const dumpAt = args.indexOf('--dump');
if (dumpAt >= 0) {
  const dump = corpus.pages.map((page) => ({
    id: page.id,
    type: groupOf(page),
    blocks: page.texts.map((text, i) => [
      text.slice(0, 160),
      corpus.labels[page.start + i],
      +heldOut[page.start + i]!.toFixed(2),
      +page.ruleKeeps[i]!,
    ]),
  }));
  writeFileSync(args[dumpAt + 1]!, JSON.stringify(dump));
}

/** What keepBlocks reads of a page besides the probabilities: the rules' choice, text lengths, code. */
const keepInputs = new Map<Page, KeepInputs>();
const pageRows = (page: Page): KeepInputs => {
  let rows = keepInputs.get(page);
  if (!rows)
    keepInputs.set(
      page,
      (rows = {
        byRules: Uint8Array.from(page.ruleKeeps, Number),
        text: page.texts.map((t) => t.length),
        code: codeAfterProse(
          page.kind,
          corpus.features.subarray(page.start * FEATURE_COUNT, page.end * FEATURE_COUNT),
        ),
        templates: page.templates,
      }),
    );
  return rows;
};

const textKept = (page: Page, kept: Uint8Array): string =>
  page.texts.filter((_, i) => kept[i] === 1).join('\n');

/** A page's approximate benchmark score when `kept` marks its blocks (their text in page order, Markdown aside). */
function scorePage(page: Page, kept: Uint8Array, reveal?: number): ReturnType<typeof pageScore> {
  const rows = pageRows(page);
  // As the service does: when the model keeps too little (enoughKept), the rules' choice stands as it is.
  if (!enoughKept(kept, rows)) return pageScore(page.truth, textKept(page, rows.byRules));
  let text = textKept(page, kept);
  if (reveal !== undefined) {
    // Else the concealed blocks sure enough join it (main-content.ts, keptConcealed).
    const p = finalStage.concealed.get(page)!;
    const revealed = page.concealed.texts.filter((_, i) => p[i]! >= reveal);
    if (revealed.length > 0) text += `\n${revealed.join('\n')}`;
  }
  return pageScore(page.truth, text);
}

/** Scores per group (zyte, each WCXB type, all of WCXB) from every page's score. */
function evaluatePages(
  score: (page: Page, index: number) => ReturnType<typeof pageScore>,
): Map<string, ReturnType<typeof corpusScore>> {
  const byGroup = new Map<string, ReturnType<typeof pageScore>[]>();
  corpus.pages.forEach((page, index) => {
    const list = byGroup.get(groupOf(page)) ?? [];
    list.push(score(page, index));
    byGroup.set(groupOf(page), list);
  });
  const out = new Map([...byGroup].map(([group, scores]) => [group, corpusScore(scores)]));
  out.set('wcxb (all)', corpusScore([...byGroup].filter(([g]) => g !== 'zyte').flatMap(([, s]) => s)));
  return out;
}

const rules = evaluatePages((page) => scorePage(page, pageRows(page).byRules));
/**
 * The objective per kind of page's threshold: WCXB overall, the mean of its seven types (so that no kind of page
 * is given up for the mean page: products and collections are a few percent of the corpus), and the article set
 * twice (its bar is the highest, and articles are what most callers scrape).
 */
const PRECISION_BAR = 0.85;
const PRECISION_WEIGHT = option('precision-weight', 0);
const objective = (scores: Map<string, { f1: number; p: number }>): number => {
  const types = [...scores].filter(([group]) => group !== 'wcxb (all)' && group !== 'zyte');
  const meanOfTypes = types.reduce((sum, [, s]) => sum + s.f1, 0) / types.length;
  const shortfall = (p: number): number => Math.max(0, PRECISION_BAR - p);
  const precisionShort =
    types.reduce((sum, [, s]) => sum + shortfall(s.p), 0) / types.length +
    shortfall(scores.get('wcxb (all)')!.p);
  return (
    scores.get('wcxb (all)')!.f1 +
    meanOfTypes +
    2 * scores.get('zyte')!.f1 -
    PRECISION_WEIGHT * precisionShort
  );
};
/** The blocks a page's kind's rule keeps, decided as the service decides (keepBlocks), on held-out predictions. */
const keptBy = (page: Page, rule: KeepRule): Uint8Array =>
  keepBlocks(rule, pageRows(page), firstHeldOut.subarray(page.start, page.end), () =>
    heldOut.subarray(page.start, page.end),
  );
/** A page's score under its kind's rule, concealed blocks revealed as the rule says. */
const scoreUnder = (page: Page, rule: KeepRule): ReturnType<typeof pageScore> => {
  const kept = keptBy(page, rule);
  return scorePage(page, kept, rule.mode === 'model' ? rule.reveal : undefined);
};
const CANDIDATES: KeepRule[] = [
  { mode: 'rules', at: 1 },
  ...[0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85].map((at) => ({
    mode: 'model' as const,
    at,
  })),
  // A bar relative to how sure the model is of the page, capped at `at` (main-content.ts, barOfPage).
  ...[0.4, 0.45, 0.5, 0.55, 0.6].map((at) => ({ mode: 'model' as const, at, relative: 0.5 })),
  ...[0.05, 0.1, 0.15, 0.2, 0.3, 0.4].map((at) => ({ mode: 'within-rules' as const, at })),
];
// Per kind of page, the threshold (or the rules' choice, null) that scores best on held-out sites, one kind at
// a time, twice over.
// A page's score depends only on its own kind's rule: score every page once per candidate, then combine.
const candidateScores = CANDIDATES.map((rule) =>
  corpus.pages.map((page) => {
    const kept = keptBy(page, rule);
    return scorePage(page, kept);
  }),
);
const choice = Object.fromEntries(PAGE_KINDS.map((k) => [k, 0])) as Record<PageKind, number>;
const evaluateChoice = (c: Record<PageKind, number>): Map<string, ReturnType<typeof corpusScore>> =>
  evaluatePages((page, index) => candidateScores[c[page.kind]]![index]!);
for (let pass = 0; pass < 2; pass++) {
  for (const kind of PAGE_KINDS) {
    let best = { candidate: choice[kind], score: -1 };
    CANDIDATES.forEach((_, candidate) => {
      const score = objective(evaluateChoice({ ...choice, [kind]: candidate }));
      if (score > best.score) best = { candidate, score };
    });
    choice[kind] = best.candidate;
  }
}
const chosen = Object.fromEntries(PAGE_KINDS.map((k) => [k, CANDIDATES[choice[k]]!])) as Record<
  PageKind,
  KeepRule
>;
// `--keep JSON` evaluates (and writes) given thresholds instead of the chosen ones; with `--choose-reveal`,
// their reveal thresholds are chosen as below.
const keepAt = args.indexOf('--keep');
const given = keepAt >= 0 ? (JSON.parse(args[keepAt + 1]!) as Record<PageKind, KeepRule>) : null;
const thresholds = given ?? chosen;
// Then, per kind the model alone decides, the probability (if any) at which it reveals concealed blocks.
if (!given || args.includes('--choose-reveal')) {
  const REVEAL_CANDIDATES = [undefined, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
  const unrevealed = corpus.pages.map((page) =>
    scoreUnder(page, { ...thresholds[page.kind], reveal: undefined }),
  );
  for (const kind of PAGE_KINDS) {
    if (thresholds[kind].mode !== 'model') continue;
    let best = { reveal: undefined as number | undefined, score: -1 };
    for (const reveal of REVEAL_CANDIDATES) {
      const rule = { ...thresholds[kind], reveal };
      const score = objective(
        evaluatePages((page, index) => (page.kind === kind ? scoreUnder(page, rule) : unrevealed[index]!)),
      );
      if (score > best.score) best = { reveal, score };
    }
    thresholds[kind] = { ...thresholds[kind], reveal: best.reveal };
    if (best.reveal === undefined) delete thresholds[kind].reveal;
  }
}
console.log('thresholds', JSON.stringify(thresholds));
const model = evaluatePages((page) => scoreUnder(page, thresholds[page.kind]));
const hidden = evaluatePages((page) => scoreUnder(page, { ...thresholds[page.kind], reveal: undefined }));
const line = (s: { f1: number; p: number; r: number }): string =>
  `${s.f1.toFixed(3)} / ${s.p.toFixed(3)} / ${s.r.toFixed(3)}`;
console.log('without revealing concealed blocks:');
for (const [group, score] of hidden) console.log(`  ${group.padEnd(15)} ${line(score)}`);
console.log(`\nheld-out sites (${folds}-fold by site): F1 / P / R`);
console.log('group           rules                  model');
for (const [group, score] of model) {
  const r = rules.get(group)!;
  console.log(`${group.padEnd(15)} ${line(r)}  ${line(score)}`);
}

if (!args.includes('--no-write')) {
  const round = (v: number): number => Number(v.toPrecision(6));
  // One tree a line: the file is generated (neither linted nor formatted) and diffs stay readable.
  const written = (m: TreeModel, names: string): string =>
    `{\n    features: ${names},\n    depth: ${m.depth},\n    base: ${round(m.base)},\n    trees: [\n` +
    m.trees
      .map((t) => `      ${JSON.stringify({ split: t.split, at: t.at, leaf: t.leaf.map(round) })},\n`)
      .join('') +
    `    ],\n  }`;
  const blocks = fitOn(corpus.features, FEATURE_NAMES, corpus.pages, corpus, 0);
  // The context stage learns from the first stage's held-out verdicts: what it will see on pages never trained on.
  const context = fitOn(contextX, CONTEXT_FEATURES, corpus.pages, corpus, 0);
  const file = join(ROOT, 'src', 'content', 'main-content', 'block-model-weights.ts');
  writeFileSync(
    file,
    `// Generated by scripts/train-main-content.ts (npm run train:main-content); do not edit by hand.\n` +
      `// ${corpus.pages.length} pages of ../shared/fidelity (zyte, wcxb), ${corpus.labels.length} blocks.\n` +
      `import type { MainContentModel } from './block-model.js';\n` +
      `import { FEATURE_NAMES } from './block-features.js';\nimport { CONTEXT_FEATURES } from './block-context.js';\n\n` +
      `export const MAIN_CONTENT_MODEL: MainContentModel = {\n  keep: ${JSON.stringify(thresholds)},\n` +
      `  blocks: ${written(blocks, 'FEATURE_NAMES')},\n  context: ${written(context, 'CONTEXT_FEATURES')},\n};\n`,
  );
  console.log(`wrote ${file}`);
}
