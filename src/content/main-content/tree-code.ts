/**
 * Trees of fixed depth as one WebAssembly function, written byte by byte from their numbers (no input of a
 * caller's ever reaches it). Each tree is a nested comparison of one row's features with its thresholds as
 * constants, its leaves added to the row's sum in the trees' order: the same additions in the same order,
 * so the same sums, as walking the trees one level at a time. Compiled code runs the branches as
 * immediates, and WebAssembly reads the features without the checks and conversions of a typed array.
 */

export interface Trees {
  depth: number;
  /** Breadth-first: each tree's split features, thresholds, then its 2^depth leaves. */
  trees: readonly { split: readonly number[]; at: readonly number[]; leaf: readonly number[] }[];
}

/**
 * `score(features, rows, rowBytes, sums, only)`, all addresses in `memory`: adds to the float64 `sums[r]` the
 * leaves of every tree for row `r` of the float32 `features` (`rowBytes` apart) when the byte `only[r]` is
 * not 0.
 */
export interface TreeCode {
  memory: WebAssembly.Memory;
  score: (features: number, rows: number, rowBytes: number, sums: number, only: number) => void;
}

/**
 * Trees run in groups of this many, each group over every row before the next: a page's rows take much the
 * same paths through a tree, which the processor's branch prediction learns while one group runs row after
 * row (a 222-block article page scored in 0.09 ms; 0.10 in groups of 4 or 32, 0.24 all trees row by row).
 */
const TREES_PER_GROUP = 16;

// The instructions used, by their WebAssembly names.
const op = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  else: 0x05,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  localGet: 0x20,
  localSet: 0x21,
  i32Load8u: 0x2d,
  f32Load: 0x2a,
  f64Load: 0x2b,
  f64Store: 0x39,
  i32Const: 0x41,
  f64Const: 0x44,
  i32Eqz: 0x45,
  i32GeU: 0x4f,
  f64Gt: 0x64,
  i32Add: 0x6a,
  i32Shl: 0x74,
  f64Add: 0xa0,
  f64PromoteF32: 0xbb,
} as const;
const VOID = 0x40;
const I32 = 0x7f;
const F64 = 0x7c;

/** Unsigned LEB128, WebAssembly's encoding of sizes, indices and offsets. */
function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

function float64(x: number): number[] {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setFloat64(0, x, true);
  return [...bytes];
}

const vector = (items: number[][]): number[] => [...leb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...leb(body.length), ...body];
const name = (text: string): number[] => [...leb(text.length), ...Buffer.from(text, 'ascii')];

// score's parameters, then its locals.
const FEATURES = 0;
const ROWS = 1;
const ROW_BYTES = 2;
const SUMS = 3;
const ONLY = 4;
const ROW = 5;
const ROW_AT = 6;
const SUM = 7;

/** The value of `tree` for the row at ROW_AT, from node `i` down (pushed on the stack as a float64). */
function emitNode(tree: Trees['trees'][number], inner: number, i: number, out: number[]): void {
  if (i >= inner) {
    out.push(op.f64Const, ...float64(tree.leaf[i - inner]!));
    return;
  }
  // feature > threshold, the float32 feature widened exactly to a double: right; otherwise (NaN too) left.
  out.push(op.localGet, ROW_AT, op.f32Load, 2, ...leb(tree.split[i]! * 4), op.f64PromoteF32);
  out.push(op.f64Const, ...float64(tree.at[i]!), op.f64Gt, op.if, F64);
  emitNode(tree, inner, 2 * i + 2, out);
  out.push(op.else);
  emitNode(tree, inner, 2 * i + 1, out);
  out.push(op.end);
}

/** The module's bytes: a memory and `score` (see TreeCode), checked by the caller against its model. */
function moduleBytes({ depth, trees }: Trees): Uint8Array<ArrayBuffer> {
  const inner = (1 << depth) - 1;
  const code: number[] = [];
  const sumAddress = [op.localGet, SUMS, op.localGet, ROW, op.i32Const, 3, op.i32Shl, op.i32Add];
  for (let first = 0; first < trees.length; first += TREES_PER_GROUP) {
    code.push(op.i32Const, 0, op.localSet, ROW, op.localGet, FEATURES, op.localSet, ROW_AT);
    code.push(op.block, VOID, op.loop, VOID);
    code.push(op.localGet, ROW, op.localGet, ROWS, op.i32GeU, op.brIf, 1);
    code.push(op.block, VOID);
    code.push(op.localGet, ONLY, op.localGet, ROW, op.i32Add, op.i32Load8u, 0, 0, op.i32Eqz, op.brIf, 0);
    code.push(...sumAddress, op.f64Load, 3, 0, op.localSet, SUM);
    for (const tree of trees.slice(first, first + TREES_PER_GROUP)) {
      code.push(op.localGet, SUM);
      emitNode(tree, inner, 0, code);
      code.push(op.f64Add, op.localSet, SUM);
    }
    code.push(...sumAddress, op.localGet, SUM, op.f64Store, 3, 0);
    code.push(op.end);
    code.push(op.localGet, ROW, op.i32Const, 1, op.i32Add, op.localSet, ROW);
    code.push(op.localGet, ROW_AT, op.localGet, ROW_BYTES, op.i32Add, op.localSet, ROW_AT, op.br, 0);
    code.push(op.end, op.end);
  }
  const body = [
    ...vector([
      [...leb(2), I32],
      [...leb(1), F64],
    ]),
    ...code,
    op.end,
  ];
  const FUNCTION_TYPE = 0x60;
  const EXPORT_FUNCTION = 0;
  const EXPORT_MEMORY = 2;
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // "\0asm", version 1
    ...section(1, vector([[FUNCTION_TYPE, ...vector([[I32], [I32], [I32], [I32], [I32]]), 0]])),
    ...section(3, vector([[0]])),
    ...section(5, vector([[0, 1]])), // one memory, one 64 KB page to start, grown by the caller
    ...section(
      7,
      vector([
        [...name('score'), EXPORT_FUNCTION, 0],
        [...name('memory'), EXPORT_MEMORY, 0],
      ]),
    ),
    ...section(10, vector([[...leb(body.length), ...body]])),
  ]);
}

/** `trees` compiled, with a memory of their own (one per model and thread). */
export function treeCode(trees: Trees): TreeCode {
  const { exports } = new WebAssembly.Instance(new WebAssembly.Module(moduleBytes(trees)));
  return { memory: exports.memory as WebAssembly.Memory, score: exports.score as TreeCode['score'] };
}
