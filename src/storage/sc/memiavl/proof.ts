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

const scratch = new Uint8Array(32);

/**
 * zz(height) ‖ zz(size) ‖ zz(version) ‖ 0x20, then (we are the right child) the left sibling's hash
 * and 0x20: the bytes of the inner node's preimage before our own hash.
 */
function innerPrefix(
  height: number,
  size: number,
  version: number,
  left: Uint8Array | undefined,
): Uint8Array {
  let off = putZigzag(scratch, 0, height);
  off = putZigzag(scratch, off, size);
  off = putZigzag(scratch, off, version);
  const out = new Uint8Array(off + 1 + (left ? left.length + 1 : 0));
  out.set(scratch.subarray(0, off));
  out[off] = 0x20;
  if (left) {
    out.set(left, off + 1);
    out[out.length - 1] = 0x20;
  }
  return out;
}

function lengthPrefixed(hash: Uint8Array): Uint8Array {
  const out = new Uint8Array(hash.length + 1);
  out[0] = 0x20;
  out.set(hash, 1);
  return out;
}

/** Existence proof of a key present in `view`, or undefined if it is absent. */
export function existenceProof(view: TreeView, key: Uint8Array): ExistenceProof | undefined {
  if (view.root === undefined) return undefined;
  const rd = view.reader;
  rd.searchKey(key);
  const path: InnerOp[] = [];
  let r = view.root;
  while (!rd.isLeaf(r)) {
    const h = rd.height(r);
    const size = rd.size(r);
    const version = rd.version(r);
    if (rd.compareKey(key, r) < 0) {
      // we go left: the right sibling's hash follows ours
      path.push({
        hash: HashOp.SHA256,
        prefix: innerPrefix(h, size, version, undefined),
        suffix: lengthPrefixed(rd.hash(rd.right(r))),
      });
      r = rd.left(r);
    } else {
      path.push({
        hash: HashOp.SHA256,
        prefix: innerPrefix(h, size, version, rd.hash(rd.left(r))),
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
