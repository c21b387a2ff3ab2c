/**
 * Proof of a key against an app hash: an ICS23 proof of the key in its IAVL store (`ics23:iavl`)
 * chained with a proof of the store root in the commit info (`ics23:simple`, tendermintSpec form),
 * encoded as Tendermint ProofOps with base64 `key` and `data` like the consensus RPC's abci_query.
 */
import { CommitmentProof, HashOp, LengthOp, type ExistenceProof } from 'cosmjs-types/cosmos/ics23/v1/proofs';
import { utf8 } from '../../primitives/bytes.ts';
import { commitInfoProof, type StoreInfo } from './commit-info.ts';

export interface ProofOp {
  type: 'ics23:iavl' | 'ics23:simple';
  /** base64 */
  key: string;
  /** base64 of the protobuf CommitmentProof */
  data: string;
}

export interface ProofOps {
  ops: ProofOp[];
}

export const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

/** ExistenceProof of store `name`'s root hash inside the commit info. */
export function storeRootProof(stores: StoreInfo[], name: string): ExistenceProof | undefined {
  const steps = commitInfoProof(stores, name);
  const store = stores.find((s) => s.name === name);
  if (!steps || !store) return undefined;
  return {
    key: utf8(name),
    value: store.hash.slice(),
    leaf: {
      hash: HashOp.SHA256,
      prehashKey: HashOp.NO_HASH,
      prehashValue: HashOp.SHA256,
      length: LengthOp.VAR_PROTO,
      prefix: Uint8Array.of(0),
    },
    path: steps.map((s) =>
      s.siblingIsLeft
        ? { hash: HashOp.SHA256, prefix: Uint8Array.from([1, ...s.sibling]), suffix: new Uint8Array(0) }
        : { hash: HashOp.SHA256, prefix: Uint8Array.of(1), suffix: s.sibling.slice() },
    ),
  };
}

export function encodeCommitmentProof(p: CommitmentProof): Uint8Array {
  return CommitmentProof.encode(p).finish();
}

export function decodeCommitmentProof(data: Uint8Array): CommitmentProof {
  return CommitmentProof.decode(data);
}

export function toProofOps(
  key: Uint8Array,
  keyProof: CommitmentProof,
  storeName: string,
  rootProof: ExistenceProof,
): ProofOps {
  return {
    ops: [
      { type: 'ics23:iavl', key: b64(key), data: b64(encodeCommitmentProof(keyProof)) },
      {
        type: 'ics23:simple',
        key: b64(utf8(storeName)),
        data: b64(encodeCommitmentProof({ exist: rootProof })),
      },
    ],
  };
}
