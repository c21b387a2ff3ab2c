/**
 * Rebuilds a tree from exported nodes in post-order (state-sync snapshot items): each node carries
 * its height and version, so the rebuilt tree has exactly the exported shape and hash. The stream is
 * untrusted input, so every structural rule is checked as nodes arrive.
 */
import { compareBytes } from '../../../primitives/bytes.ts';
import { ImportError } from '../errors.ts';
import { MemNode, NodeReader } from './node.ts';
import { TreeView } from './tree.ts';

export interface ExportNode {
  key: Uint8Array;
  value: Uint8Array | undefined;
  version: number;
  height: number;
}

export class TreeImporter {
  private readonly store: string;
  private readonly version: number;
  private stack: { node: MemNode; minKey: Uint8Array }[] = [];
  private lastLeaf: Uint8Array | undefined;

  constructor(store: string, version: number) {
    this.store = store;
    this.version = version;
  }

  add(n: ExportNode): void {
    const fail = (why: string): never => {
      throw new ImportError(`store ${this.store}: ${why}`);
    };
    if (!Number.isInteger(n.version) || n.version < 1 || n.version > this.version) {
      fail(`node version ${n.version} outside 1..${this.version}`);
    }
    if (n.height === 0) {
      if (n.key.length === 0) fail('empty leaf key');
      if (this.lastLeaf && compareBytes(this.lastLeaf, n.key) >= 0)
        fail('leaf keys are not strictly ascending');
      this.lastLeaf = n.key;
      const leaf = new MemNode(0, 1, n.version, n.key, n.value ?? new Uint8Array(0), undefined, undefined);
      this.stack.push({ node: leaf, minKey: n.key });
      return;
    }
    if (this.stack.length < 2) fail('branch node without two children');
    const right = this.stack.pop()!;
    const left = this.stack.pop()!;
    const lh = left.node.height;
    const rh = right.node.height;
    if (n.height !== Math.max(lh, rh) + 1)
      fail(`branch height ${n.height} does not match its children (${lh}, ${rh})`);
    if (Math.abs(lh - rh) > 1) fail('tree is not balanced');
    if (compareBytes(n.key, right.minKey) !== 0) fail('branch key is not the first key of its right subtree');
    const node = new MemNode(
      n.height,
      left.node.size + right.node.size,
      n.version,
      right.minKey,
      undefined,
      left.node,
      right.node,
    );
    this.stack.push({ node, minKey: left.minKey });
  }

  finish(): TreeView {
    if (this.stack.length > 1)
      throw new ImportError(
        `store ${this.store}: ${this.stack.length} subtrees left over (missing branch nodes)`,
      );
    return new TreeView(new NodeReader(undefined), this.stack[0]?.node, this.version);
  }
}
