/**
 * Writing a tree version as snapshot files (layout in snapshot-file.ts). The writer walks an immutable
 * TreeView, so it can run in the background while later blocks are committed; it yields to the event
 * loop every chunk and writes through buffered file handles.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { mkdirSync, writeFileSync, openSync, fsyncSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { toHex } from '../../../primitives/bytes.ts';
import { leafRef, type NodeRef } from './node.ts';
import { putBranchRecord, putLeafRecord, RECORD_SIZE, type SnapshotMeta } from './snapshot-file.ts';
import type { TreeView } from './tree.ts';

const CHUNK = 1 << 20;

/** An append-only file with a write buffer; flushes in CHUNK-sized writes. */
class BufferedFile {
  private fh: FileHandle;
  private buf = new Uint8Array(CHUNK);
  private len = 0;
  written = 0;

  private constructor(fh: FileHandle) {
    this.fh = fh;
  }

  static async create(path: string): Promise<BufferedFile> {
    return new BufferedFile(await open(path, 'w'));
  }

  /** Reserves n bytes at the end of the buffer, flushing first if needed. */
  async reserve(n: number): Promise<{ buf: Uint8Array; off: number }> {
    if (this.len + n > this.buf.length) await this.flush();
    if (n > this.buf.length) this.buf = new Uint8Array(n);
    const off = this.len;
    this.len += n;
    this.written += n;
    return { buf: this.buf, off };
  }

  async flush(): Promise<void> {
    if (this.len === 0) return;
    await this.fh.write(this.buf, 0, this.len);
    this.len = 0;
  }

  async close(): Promise<void> {
    await this.flush();
    await this.fh.sync();
    await this.fh.close();
  }
}

/** Writes `view` into `dir` (created). Returns the meta written. Durable when it resolves. */
export async function writeTreeSnapshot(view: TreeView, dir: string): Promise<SnapshotMeta> {
  mkdirSync(dir, { recursive: true });
  const branches = await BufferedFile.create(join(dir, 'branches'));
  const leaves = await BufferedFile.create(join(dir, 'leaves'));
  const kvs = await BufferedFile.create(join(dir, 'kvs'));
  let root: number | null = null;
  let leafCount = 0;
  let branchCount = 0;
  try {
    if (view.root !== undefined) {
      const rd = view.reader;
      // Iterative post-order; each frame remembers the new refs of its children and the leaf index
      // at which its right subtree starts (that leaf's key is the branch key).
      type Frame = { r: NodeRef; stage: number; left: number; right: number; keyLeaf: number };
      const stack: Frame[] = [{ r: view.root, stage: 0, left: 0, right: 0, keyLeaf: 0 }];
      let last = 0;
      let sinceYield = 0;
      while (stack.length > 0) {
        const f = stack[stack.length - 1];
        if (rd.isLeaf(f.r)) {
          const key = rd.key(f.r);
          const value = rd.value(f.r)!;
          const kv = await kvs.reserve(key.length + value.length);
          const kvOffset = kvs.written - key.length - value.length;
          kv.buf.set(key, kv.off);
          kv.buf.set(value, kv.off + key.length);
          const rec = await leaves.reserve(RECORD_SIZE);
          putLeafRecord(
            rec.buf,
            rec.off,
            rd.version(f.r),
            key.length,
            kvOffset,
            value.length,
            rd.hash(f.r),
            key,
          );
          last = leafRef(leafCount++);
          stack.pop();
        } else if (f.stage === 0) {
          f.stage = 1;
          stack.push({ r: rd.left(f.r), stage: 0, left: 0, right: 0, keyLeaf: 0 });
          continue;
        } else if (f.stage === 1) {
          f.left = last;
          f.keyLeaf = leafCount;
          f.stage = 2;
          stack.push({ r: rd.right(f.r), stage: 0, left: 0, right: 0, keyLeaf: 0 });
          continue;
        } else {
          f.right = last;
          const rec = await branches.reserve(RECORD_SIZE);
          putBranchRecord(
            rec.buf,
            rec.off,
            rd.version(f.r),
            rd.size(f.r),
            rd.height(f.r),
            f.left,
            f.right,
            f.keyLeaf,
            rd.hash(f.r),
            rd.key(f.r),
          );
          last = branchCount++;
          stack.pop();
        }
        if (++sinceYield >= 65536) {
          sinceYield = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
      root = last;
    }
  } finally {
    await Promise.all([branches.close(), leaves.close(), kvs.close()]);
  }
  const meta: SnapshotMeta = {
    version: view.version,
    root,
    branches: branchCount,
    leaves: leafCount,
    rootHash: toHex(view.rootHash()),
  };
  writeDurable(join(dir, 'meta.json'), JSON.stringify(meta));
  return meta;
}

/** Writes a small file and fsyncs it. */
export function writeDurable(path: string, data: string | Uint8Array): void {
  writeFileSync(path, data);
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** fsyncs a directory so that renames inside it survive a power cut. */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
