/**
 * ICS23 proofs for IAVL keys, in the exact form cosmos/iavl produces (proof_ics23.go) so that
 * `@confio/ics23`'s `iavlSpec` verifies them: the leaf op carries zz(0)‖zz(1)‖zz(version) as prefix,
 * each inner op carries zz(height)‖zz(size)‖zz(version) and the sibling hash on its side.
 */
import {
  HashOp,
  LengthOp,
  type CommitmentProof,
  type ExistenceProof,
  type InnerOp,
} from 'cosmjs-types/cosmos/ics23/v1/proofs';
import { putZigzag } from '../../../codec/varint.ts';
import { leafPrefix } from './hashing.ts';
import type { TreeView } from './tree.ts';

function innerPrefix(height: number, size: number, version: number): number[] {
  const buf = new Uint8Array(32);
  let off = putZigzag(buf, 0, height);
  off = putZigzag(buf, off, size);
  off = putZigzag(buf, off, version);
  return [...buf.subarray(0, off)];
}

/** Existence proof of a key present in `view`, or undefined if it is absent. */
export function existenceProof(view: TreeView, key: Uint8Array): ExistenceProof | undefined {
  if (view.root === undefined) return undefined;
  const rd = view.reader;
  rd.searchKey(key);
  const path: InnerOp[] = [];
  let r = view.root;
  while (!rd.isLeaf(r)) {
    const prefix = innerPrefix(rd.height(r), rd.size(r), rd.version(r));
    if (rd.compareKey(key, r) < 0) {
      // we go left: the right sibling's hash follows ours
      path.push({
        hash: HashOp.SHA256,
        prefix: Uint8Array.from([...prefix, 0x20]),
        suffix: Uint8Array.from([0x20, ...rd.hash(rd.right(r))]),
      });
      r = rd.left(r);
    } else {
      path.push({
        hash: HashOp.SHA256,
        prefix: Uint8Array.from([...prefix, 0x20, ...rd.hash(rd.left(r)), 0x20]),
        suffix: new Uint8Array(0),
      });
      r = rd.right(r);
    }
  }
  if (rd.compareKey(key, r) !== 0) return undefined;
  return {
    key: rd.key(r).slice(),
    value: rd.value(r)!.slice(),
    leaf: {
      hash: HashOp.SHA256,
      prehashKey: HashOp.NO_HASH,
      prehashValue: HashOp.SHA256,
      length: LengthOp.VAR_PROTO,
      prefix: leafPrefix(rd.version(r)),
    },
    path: path.reverse(), // ICS23 applies ops from the leaf upwards
  };
}

/** An existence proof if the key is present, otherwise a non-existence proof with its neighbours. */
export function commitmentProof(
  view: TreeView,
  key: Uint8Array,
): { proof: CommitmentProof; exists: boolean } {
  const exist = existenceProof(view, key);
  if (exist) return { proof: { exist }, exists: true };
  const { index } = view.indexOf(key);
  const left = view.leafAt(index - 1);
  const right = view.leafAt(index);
  return {
    proof: {
      nonexist: {
        key: key.slice(),
        left: left ? existenceProof(view, left.key) : undefined,
        right: right ? existenceProof(view, right.key) : undefined,
      },
    },
    exists: false,
  };
}
