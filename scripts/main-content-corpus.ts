// The training corpus of the main-content model: every page of ../shared/fidelity's sets, parsed and cut
// into blocks exactly as the service does (analysePage), each block labelled by whether its text is in the
// page's hand-made ground truth, and the metric the fidelity benchmark scores pages with.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { FEATURE_COUNT, ruleKept } from '../src/content/main-content/block-features.js';
import { containersOf } from '../src/content/main-content/block-context.js';
import { decodeHtml } from '../src/content/parse/decode.js';
import { itemTemplates } from '../src/content/main-content/item-templates.js';
import { analysePage } from '../src/content/main-content/main-content.js';
import { detectPageKind } from '../src/content/main-content/page-kind.js';
import type { PageKind } from '../src/content/main-content/page-kind.js';
import { parseHtml } from '../src/content/parse/parse.js';

export interface Page {
  id: string;
  set: string;
  type: string;
  /** The kind the service detects (page-kind.ts), which picks the model's threshold. */
  kind: PageKind;
  host: string;
  truth: Map<string, number>;
  /** Rows of this page in the corpus arrays. */
  start: number;
  end: number;
  texts: string[];
  /** What the rules keep of each block (inside their roots and not left out): the baseline. */
  ruleKeeps: boolean[];
  /** Each block's three containers (block-context.ts). */
  containers: Int32Array;
  /** Each block's group in a repeated item (item-templates.ts), on the kinds of page that fill them. */
  templates?: Int32Array;
  /** The blocks inside concealed elements, apart (block-features.ts): never trained on, only revealed. */
  concealed: { features: Float32Array; texts: string[]; containers: Int32Array };
}

export interface Corpus {
  pages: Page[];
  features: Float32Array;
  labels: Uint8Array;
  /** Each block's share of shingles in the truth, the soft label. */
  shares: Float32Array;
  /** Each page weighs the same in total, shared among its blocks by their words (the metric is per page). */
  weights: Float32Array;
}

const tokenize = (text: string): string[] => text.match(/[\p{L}\p{N}_]+/gu) ?? [];

/** 4-word shingles with their counts: the fidelity benchmark's unit of text. */
export function shingles(text: string): Map<string, number> {
  const t = tokenize(text);
  const counts = new Map<string, number>();
  for (let i = 0; i < Math.max(1, t.length - 3); i++) {
    const key = t.slice(i, i + 4).join('\u0001');
    if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Precision and recall of a page's output against its truth, as the benchmark counts them. */
export function pageScore(
  truth: Map<string, number>,
  output: string,
): { p: number | null; r: number | null } {
  const out = shingles(output);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [key, x] of truth) {
    const y = out.get(key) ?? 0;
    tp += Math.min(x, y);
    fn += Math.max(0, x - y);
  }
  for (const [key, y] of out) fp += Math.max(0, y - (truth.get(key) ?? 0));
  if (fp === 0 && fn === 0) return { p: 1, r: 1 };
  return { p: tp + fp > 0 ? tp / (tp + fp) : null, r: tp + fn > 0 ? tp / (tp + fn) : null };
}

/** Macro precision and recall over pages, F1 of the two means (the benchmark's figure). */
export function corpusScore(scores: { p: number | null; r: number | null }[]): {
  f1: number;
  p: number;
  r: number;
} {
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const p = mean(scores.flatMap((s) => (s.p === null ? [] : [s.p])));
  const r = mean(scores.flatMap((s) => (s.r === null ? [] : [s.r])));
  return { f1: p + r > 0 ? (2 * p * r) / (p + r) : 0, p, r };
}

/** The share of a block's 4-word shingles in the truth (a short block: 1 when its words appear in order). */
function truthShare(text: string, truth: Map<string, number>, truthWords: string): number {
  const words = tokenize(text);
  if (words.length === 0) return 0;
  if (words.length < 4) return truthWords.includes(` ${words.join(' ')} `) ? 1 : 0;
  let hits = 0;
  for (let i = 0; i + 4 <= words.length; i++) if (truth.has(words.slice(i, i + 4).join('\u0001'))) hits++;
  return hits / (words.length - 3);
}

export function loadCorpus(root: string, sets: string[]): Corpus {
  const pages: Page[] = [];
  const features: Float32Array[] = [];
  const labels: number[] = [];
  const shares: number[] = [];
  const weights: number[] = [];
  let rows = 0;
  for (const set of sets) {
    const dir = join(root, set);
    const truth = JSON.parse(readFileSync(join(dir, 'ground-truth.json'), 'utf8')) as Record<
      string,
      { articleBody: string; url: string; type?: string }
    >;
    for (const file of readdirSync(join(dir, 'pages')).sort()) {
      const id = file.replace(/\.html\.gz$/, '');
      const entry = truth[id];
      if (!entry) continue;
      const html = decodeHtml(gunzipSync(readFileSync(join(dir, 'pages', file))), 'text/html');
      const url = new URL(`http://127.0.0.1/${id}.html`);
      const doc = parseHtml(html);
      const kind = detectPageKind(doc, url).kind;
      const analysis = analysePage(doc, kind, { texts: true, concealed: true });
      if (!analysis?.blocks) continue;
      const { blocks } = analysis;
      const texts = blocks.texts!;
      const truthShingles = shingles(entry.articleBody);
      const truthWords = ` ${tokenize(entry.articleBody).join(' ')} `;
      const words = texts.map((t) => tokenize(t).length);
      const total = words.reduce((a, b) => a + b, 0) + texts.length;
      const ruleKeeps = texts.map((_, i) => ruleKept(blocks, i));
      texts.forEach((text, i) => {
        const share = truthShare(text, truthShingles, truthWords);
        labels.push(share >= 0.5 ? 1 : 0);
        shares.push(share);
        weights.push((words[i]! + 1) / total);
      });
      features.push(blocks.features);
      pages.push({
        id,
        set,
        type: entry.type ?? 'article',
        kind,
        host: new URL(entry.url).hostname.replace(/^www\./, ''),
        truth: truthShingles,
        start: rows,
        end: rows + texts.length,
        texts,
        ruleKeeps,
        containers: containersOf(blocks.elements),
        templates: itemTemplates(kind, blocks.elements),
        concealed: {
          features: blocks.concealed.features,
          texts: blocks.concealed.texts!,
          containers: containersOf(blocks.concealed.elements),
        },
      });
      rows += texts.length;
    }
  }
  const all = new Float32Array(rows * FEATURE_COUNT);
  let offset = 0;
  for (const f of features) {
    all.set(f, offset);
    offset += f.length;
  }
  // Mean weight 1, so regularisation reads in rows.
  const scale = rows / pages.length;
  return {
    pages,
    features: all,
    labels: Uint8Array.from(labels),
    shares: Float32Array.from(shares),
    weights: Float32Array.from(weights, (w) => w * scale),
  };
}
