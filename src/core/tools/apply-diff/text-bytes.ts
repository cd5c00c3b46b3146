// A long text as bytes, one chunk at a time, and its newline counts. The multi-pattern scan (scan.ts)
// reads a text's bytes (an unaligned 32-bit load per step is cheaper than four charCodeAt calls), and apply_diff needs
// the line number of offsets deep in a big file. JavaScript offers neither a byte view of a string nor a native
// newline count (an indexOf per line costs ~8 ns of call overhead each, ~0.8 ms per 100,000 lines).
//
// Each CHUNK of the text is copied natively into one small buffer, the memory of a tiny WebAssembly function that
// counts newlines 16 bytes at a time with SIMD instructions. A chunk with no character above U+00FF is written as
// Latin-1: one byte per character, its code (a plain copy of V8's one-byte strings, ~3x faster than UTF-8 encoding;
// whether a chunk qualifies, V8 answers at once for a one-byte string). Such a chunk's bytes are its characters: it is
// counted and scanned as bytes. Any other chunk is read as characters and counted with indexOf. The chunk is counted
// while it is fresh in the cache (the newlines before every 1,024th character are kept), then scanned from the same
// buffer: the text is read from memory once, and the buffer stays in the cache whatever the file's size (the earlier
// design encoded the whole text into a buffer as large as the file, then read it twice more). Where WebAssembly SIMD
// or Buffer is missing, indexOf counts and nothing is read as bytes.
//
// The module, written by hand (its text form). Per 1,024-byte block, each of 16 byte lanes counts the newlines it
// saw (a compare gives -1 per match, subtracted), 64 bytes per round, and the lanes are summed at the block's end:
//   (module
//     (memory (export "mem") 1)
//     (func (export "blocks") (param $p i32) (param $end i32) (param $out i32) (local $acc v128) (local $q i32)
//       (block $done (loop $block
//         (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
//         (local.set $q (select (local.get $end) (i32.add (local.get $p) (i32.const 1024))
//                               (i32.gt_u (i32.add (local.get $p) (i32.const 1024)) (local.get $end))))
//         (local.set $acc (v128.const i32x4 0 0 0 0))
//         (block $filled (loop $round
//           (br_if $filled (i32.ge_u (local.get $p) (local.get $q)))
//           ;; four times, at offsets 0, 16, 32, 48:
//           (local.set $acc (i8x16.sub (local.get $acc) (i8x16.eq (v128.load offset=K (local.get $p)) (v128.const i8x16 10 ... 10))))
//           (local.set $p (i32.add (local.get $p) (i32.const 64)))
//           (br $round)))
//         (i32.store (local.get $out) (sum of the i32x4 lanes of
//           (i32x4.extadd_pairwise_i16x8_u (i16x8.extadd_pairwise_i8x16_u (local.get $acc)))))
//         (local.set $out (i32.add (local.get $out) (i32.const 4)))
//         (br $block)))))
// A block's lanes hold at most 64 each, so they never overflow. The round may read up to 63 bytes past `end`: the
// buffer keeps zeros there.

/** Characters per chunk (the string's chunk and its bytes fit the core's cache together). */
export const CHUNK = 1 << 17;
/** Characters before a chunk that its buffer also holds (a gram ending at the chunk's first character reads them). */
export const MARGIN = 16;
/** Newline counts are kept for every BLOCK characters (a line number then costs at most one short indexOf loop). */
const BLOCK_BITS = 10;
const BLOCK = 1 << BLOCK_BITS;
/** Zeros kept after the copied bytes (the counting round's over-read). */
const PADDING = 64;
/** Bytes for a chunk: one per character, the margin, the padding. */
const TEXT_BYTES = CHUNK + MARGIN + PADDING;
/** Where the per-block counts are written. */
const COUNTS_AT = (TEXT_BYTES + 15) & ~15;

interface Counter {
  /** Newlines per 1,024-byte block of bytes [p, end), written as 32-bit counts from `out` on. */
  blocks: (p: number, end: number, out: number) => void;
  /** Views of the memory (it never grows after load(), so they stay valid): a Buffer for its Latin-1 writer, bytes and
   * a DataView for the scan, the per-block counts. */
  latin1: Buffer;
  bytes: Uint8Array;
  view: DataView;
  counts: Int32Array;
}

let counter: Counter | null | undefined;
/** The text whose chunk the buffer holds, and which chunk. */
let owner: TextBytes | undefined;
let ownerChunk = -1;

function wasmBytes(): Uint8Array<ArrayBuffer> {
  const LF = new Array<number>(16).fill(10);
  const get = (l: number) => [0x20, l];
  const set = (l: number) => [0x21, l];
  const i32 = (v: number) => (v < 64 ? [0x41, v] : [0x41, (v & 0x7f) | 0x80, v >> 7]); // v < 8192
  const simd = (op: number) => [0xfd, op];
  const round = (offset: number) => [
    ...get(3),
    ...get(0),
    ...simd(0x00),
    4,
    offset, // v128.load offset=K
    ...simd(0x0c),
    ...LF,
    ...simd(0x23), // i8x16.eq
    ...simd(0x71),
    ...set(3), // i8x16.sub, acc
  ];
  const lane = (k: number) => [...get(5), ...simd(0x1b), k]; // i32x4.extract_lane of $sums
  const body = [
    3,
    1,
    0x7b,
    1,
    0x7f,
    1,
    0x7b, // locals: $acc v128 (3); $q i32 (4); $sums v128 (5)
    0x02,
    0x40,
    0x03,
    0x40, // block $done, loop $block
    ...get(0),
    ...get(1),
    0x4f,
    0x0d,
    1, // br_if $done (p >= end)
    ...get(1),
    ...get(0),
    ...i32(1024),
    0x6a,
    ...get(0),
    ...i32(1024),
    0x6a,
    ...get(1),
    0x4b,
    0x1b,
    ...set(4), // q = min
    ...simd(0x0c),
    ...new Array<number>(16).fill(0),
    ...set(3), // acc = 0
    0x02,
    0x40,
    0x03,
    0x40, // block $filled, loop $round
    ...get(0),
    ...get(4),
    0x4f,
    0x0d,
    1, // br_if $filled (p >= q)
    ...round(0),
    ...round(16),
    ...round(32),
    ...round(48),
    ...get(0),
    ...i32(64),
    0x6a,
    ...set(0), // p += 64
    0x0c,
    0,
    0x0b,
    0x0b, // br $round, end, end
    ...get(2), // address
    ...get(3),
    ...simd(0x7d),
    ...simd(0x7f), // extadd_pairwise i8->i16 (u), i16->i32 (u)
    ...set(5),
    ...lane(0),
    ...lane(1),
    0x6a,
    ...lane(2),
    0x6a,
    ...lane(3),
    0x6a,
    0x36,
    2,
    0, // i32.store
    ...get(2),
    ...i32(4),
    0x6a,
    ...set(2), // out += 4
    0x0c,
    0,
    0x0b,
    0x0b, // br $block, end, end
    0x0b,
  ];
  const leb = (v: number) => (v < 128 ? [v] : [(v & 0x7f) | 0x80, v >> 7]); // v < 16384
  const name = (s: string) => [s.length, ...Array.from(s, (ch) => ch.charCodeAt(0))];
  const section = (id: number, content: number[]) => [id, ...leb(content.length), ...content];
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    1,
    0,
    0,
    0,
    ...section(1, [1, 0x60, 3, 0x7f, 0x7f, 0x7f, 0]), // type: (i32, i32, i32) -> ()
    ...section(3, [1, 0]), // function 0 has type 0
    ...section(5, [1, 0, 1]), // one memory, 1 page
    ...section(7, [2, ...name('blocks'), 0, 0, ...name('mem'), 2, 0]), // exports
    ...section(10, [1, ...leb(body.length), ...body]), // code
  ]);
}

/** The part of the WebAssembly API used here (core compiles without the DOM types that declare it). */
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}
interface WasmMemory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}

function load(): Counter | null {
  try {
    const wa = (globalThis as { WebAssembly?: Wasm }).WebAssembly;
    if (!wa || typeof Buffer === 'undefined') return null;
    const inst = new wa.Instance(new wa.Module(wasmBytes()));
    const mem = inst.exports.mem as WasmMemory;
    const pages = Math.ceil((COUNTS_AT + (CHUNK >> BLOCK_BITS) * 4 + 64) / 65536);
    mem.grow(pages - mem.buffer.byteLength / 65536);
    return {
      blocks: inst.exports.blocks as Counter['blocks'],
      latin1: Buffer.from(mem.buffer),
      bytes: new Uint8Array(mem.buffer),
      view: new DataView(mem.buffer),
      counts: new Int32Array(mem.buffer, COUNTS_AT, CHUNK >> BLOCK_BITS),
    };
  } catch {
    return null;
  }
}

function theCounter(): Counter | null {
  if (counter === undefined) counter = load();
  return counter;
}

/** A character that is not one byte in Latin-1. A one-byte string cannot hold one, and V8 answers that without
 * reading it. */
const WIDE = /[^\x00-\xff]/;

/** Newlines in text[from, to), with indexOf (short stretches, or where the counter is missing). */
function countByIndexOf(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

/**
 * A text read as bytes a chunk at a time, and the newlines before any offset. One text's chunk is in the buffer at a
 * time: a text whose chunk another took (a pause let another scan run) copies it again when next asked.
 */
export class TextBytes {
  /** Text offset of the buffer's first byte while this text's chunk is loaded (bytes()[x - base] is character x). */
  base = 0;
  /** Whether the loaded chunk (and its margin) has no character above U+00FF: its bytes are its characters' codes. */
  oneByte = false;
  /** Newlines before character BLOCK * j, for the blocks counted so far (chunks are counted in order). */
  private readonly before: Int32Array;
  private counted = 0;

  constructor(readonly text: string) {
    this.before = new Int32Array((text.length >> BLOCK_BITS) + 2);
  }

  /**
   * Loads the chunk holding character `at` (counting it if it is the next to count): the end of that chunk. Its bytes
   * are readable (bytes(), view()) from its start - MARGIN when `oneByte`; otherwise read its characters.
   */
  load(at: number): number {
    const text = this.text;
    const k = Math.floor(at / CHUNK);
    const start = k * CHUNK;
    const end = Math.min(text.length, start + CHUNK);
    const c = theCounter();
    if (!c) this.oneByte = false;
    else if (owner !== this || ownerChunk !== k) {
      const from = Math.max(0, start - MARGIN);
      const offset = start === 0 ? MARGIN : 0;
      const slice = text.slice(from, end);
      this.oneByte = !WIDE.test(slice);
      // A wide chunk is read as characters: nothing of it is copied (the zeros mark the buffer as not holding it).
      const written = this.oneByte ? c.latin1.write(slice, offset, 'latin1') : 0;
      c.latin1.fill(0, offset + written, offset + written + PADDING);
      // eslint-disable-next-line @typescript-eslint/no-this-alias -- the module-wide buffer records which instance fills it
      owner = this;
      ownerChunk = k;
      this.base = from - offset;
    }
    if (this.counted === start >> BLOCK_BITS && start < text.length) {
      if (this.oneByte) this.countBytes(c!, start, end);
      else this.countWithIndexOf(start, end);
    }
    return end;
  }

  /** The buffer (after any pause, load() again: another text may hold it now). */
  bytes(): Uint8Array {
    return counter!.bytes;
  }

  /** The buffer as a DataView (unaligned multi-byte reads). */
  view(): DataView {
    return counter!.view;
  }

  /** Newlines in text[0, offset). */
  linesBefore(offset: number): number {
    offset = Math.max(0, Math.min(offset, this.text.length));
    const j = offset >> BLOCK_BITS;
    while (this.counted <= j && this.counted * BLOCK < this.text.length) this.load(this.counted * BLOCK);
    // Now j <= counted: before[j] is known.
    return this.before[j]! + countByIndexOf(this.text, j << BLOCK_BITS, offset);
  }

  /** Newlines in text[from, to). */
  count(from: number, to: number): number {
    return this.linesBefore(to) - this.linesBefore(from);
  }

  /** Counts the blocks of the loaded one-byte chunk [start, end) in its bytes (start is a multiple of BLOCK, so its
   * blocks start 16-byte aligned in the buffer). */
  private countBytes(c: Counter, start: number, end: number): void {
    const before = this.before;
    const n = (end - start + BLOCK - 1) >> BLOCK_BITS;
    c.blocks(start - this.base, end - this.base, COUNTS_AT);
    const counts = c.counts;
    let j = start >> BLOCK_BITS;
    for (let k = 0; k < n; k++, j++) before[j + 1] = before[j]! + counts[k]!;
    this.counted = j;
  }

  private countWithIndexOf(start: number, end: number): void {
    const before = this.before;
    let j = start >> BLOCK_BITS;
    for (let s = start; s < end; s += BLOCK, j++)
      before[j + 1] = before[j]! + countByIndexOf(this.text, s, Math.min(end, s + BLOCK));
    this.counted = j;
  }
}
