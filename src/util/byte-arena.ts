/**
 * Copies of many small byte strings without an ArrayBuffer each: `slice()` allocates a backing store
 * per copy (~0.5 µs), a view into a shared chunk costs about half. A chunk lives as long as any copy
 * taken from it does, so an arena suits copies that die together (one block's values, say).
 */
export class ByteArena {
  private chunk: Uint8Array;
  private used = 0;
  private readonly chunkSize: number;

  constructor(chunkSize = 64 * 1024) {
    this.chunkSize = chunkSize;
    this.chunk = new Uint8Array(chunkSize);
  }

  copy(bytes: Uint8Array): Uint8Array {
    const n = bytes.length;
    if (n > this.chunkSize >>> 2) return bytes.slice();
    if (this.used + n > this.chunk.length) {
      this.chunk = new Uint8Array(this.chunkSize);
      this.used = 0;
    }
    const at = this.used;
    const chunk = this.chunk;
    // a loop beats TypedArray.prototype.set for the short keys and values this is for
    for (let i = 0; i < n; i++) chunk[at + i] = bytes[i];
    this.used = at + n;
    return new Uint8Array(chunk.buffer, at, n);
  }
}
