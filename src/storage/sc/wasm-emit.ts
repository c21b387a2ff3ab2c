/**
 * A minimal WebAssembly binary emitter for the SIMD kernels of State Commit (the flatkv lattice and
 * the batched IAVL SHA-256): modules are generated at load time from readable TypeScript, so the repo
 * carries no toolchain and no opaque binary. Opcodes: WebAssembly core + SIMD (0xfd prefix).
 */

export const I32 = 0x7f;
export const V128 = 0x7b;

export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

export function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

export const simd = (op: number): number[] => [0xfd, ...uleb(op)];
export const get = (i: number): number[] => [0x20, ...uleb(i)];
export const set = (i: number): number[] => [0x21, ...uleb(i)];
export const i32c = (n: number): number[] => [0x41, ...sleb(n | 0)];
export const v128c = (words: number[]): number[] => {
  const b = new Uint8Array(16);
  const dv = new DataView(b.buffer);
  for (let i = 0; i < 4; i++) dv.setUint32(4 * i, words[i] >>> 0, true);
  return [...simd(0x0c), ...b];
};
export const splatc = (w: number): number[] => v128c([w, w, w, w]);
export const shuffle = (lanes: number[]): number[] => [...simd(0x0d), ...lanes];
export const V128_LOAD = (offset: number): number[] => [...simd(0x00), 4, ...uleb(offset)];
export const V128_STORE = (offset: number): number[] => [...simd(0x0b), 4, ...uleb(offset)];
export const I32_LOAD = (offset: number): number[] => [0x28, 2, ...uleb(offset)];
export const I32_STORE = (offset: number): number[] => [0x36, 2, ...uleb(offset)];
export const I32_ADD = [0x6a];
export const I32_SHL = [0x74];
export const I32_LT_U = [0x49];
export const I32X4_SPLAT = simd(0x11);
export const I32X4_EXTRACT = (lane: number): number[] => [...simd(0x1b), lane];
export const I32X4_REPLACE = (lane: number): number[] => [...simd(0x1c), lane];
export const AND = simd(0x4e);
export const OR = simd(0x50);
export const XOR = simd(0x51);
export const BITSELECT = simd(0x52);
export const I32X4_ADD = simd(0xae);
export const I32X4_SHL = simd(0xab);
export const I32X4_SHR_U = simd(0xad);
export const I16X8_ADD = simd(0x8e);
export const I16X8_SUB = simd(0x91);

export function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

export function vec(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

function name(s: string): number[] {
  return [...uleb(s.length), ...[...s].map((c) => c.charCodeAt(0))];
}

export interface WasmFunction {
  name: string;
  params: number[];
  /** local declarations: [count, type] */
  locals: [number, number][];
  /** instructions, without the final `end` */
  code: number[];
}

/** A module with one page of exported memory (`mem`) and the given exported functions (no results). */
export function wasmModule(fns: WasmFunction[]): Uint8Array {
  const types = vec(fns.map((f) => [0x60, ...vec(f.params.map((p) => [p])), 0]));
  const funcs = vec(fns.map((_, i) => uleb(i)));
  const memory = vec([[0x00, 1]]);
  const exports = vec([[...name('mem'), 0x02, 0], ...fns.map((f, i) => [...name(f.name), 0x00, ...uleb(i)])]);
  const code = vec(
    fns.map((f) => {
      const body = [...vec(f.locals.map(([n, t]) => [...uleb(n), t])), ...f.code, 0x0b];
      return [...uleb(body.length), ...body];
    }),
  );
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, types),
    ...section(3, funcs),
    ...section(5, memory),
    ...section(7, exports),
    ...section(10, code),
  ]);
}

/** The slice of the WebAssembly API used here (the project's TypeScript libs do not declare it). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

/** Instantiates a generated module; undefined where WebAssembly (or its SIMD) is unavailable. */
export function instantiate<T>(bytes: Uint8Array): (T & { mem: { buffer: ArrayBuffer } }) | undefined {
  if (!wasm?.validate(bytes)) return undefined;
  return new wasm.Instance(new wasm.Module(bytes)).exports as T & { mem: { buffer: ArrayBuffer } };
}
