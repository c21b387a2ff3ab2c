/**
 * eth_getProof with IAVL proofs, not Merkle-Patricia ones (the chain commits with IAVL and flatkv, not an Ethereum trie):
 *   { address, hexValues: [32-byte value of each slot, or "0x" when unset],
 *     storageProof: [the two-op ProofOps of each slot's key in the `evm` store] }
 * Each ProofOps proves the key (or its absence) in the store (`ics23:iavl`) and the store root in the
 * commit info (`ics23:simple`), so it verifies against the app hash of the state after the requested
 * block. At most 1,024 keys; only heights State Commit can still prove; a flatkv chain cannot prove
 * anything and answers -32000 naming `state_commitment` (node/ raises those errors).
 */
import { address, data } from '../codecs/hex.ts';
import { CodecError } from '../codecs/errors.ts';
import { p, type ParamCodec } from '../codecs/params.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import type { Resolver } from './resolve.ts';

export const MAX_PROOF_KEYS = 1024;

export interface ProofOpsView {
  ops: { type: string; key: string; data: string }[];
}

export interface SlotProof {
  /** undefined: the slot is unset (the proof is of absence) */
  value: Uint8Array | undefined;
  proofOps: ProofOpsView;
}

/** Proofs of storage slots against the app hash of the state after `height` (node/ implements it). */
export interface ProofReader {
  storageProofs(height: number, address: Uint8Array, slots: Uint8Array[]): Promise<SlotProof[]>;
}

const storageKeys: ParamCodec<Uint8Array[]> = {
  optional: false,
  parse(v) {
    if (!Array.isArray(v)) throw new CodecError('storage keys must be an array of hex strings');
    if (v.length > MAX_PROOF_KEYS)
      throw new CodecError(`too many storage keys: ${v.length}, at most ${MAX_PROOF_KEYS}`);
    return v.map((k, i) => {
      try {
        return p.storageKey.parse(k);
      } catch (err) {
        if (err instanceof CodecError) throw new CodecError(`storage key ${i}: ${err.message}`);
        throw err;
      }
    });
  },
};

export function proofMethods(proofs: ProofReader, resolve: Resolver): MethodTable {
  return {
    eth_getProof: method([p.address, storageKeys, p.blockRef], async (addr, keys, ref) => {
      const slots = await proofs.storageProofs(resolve.state(ref), addr, keys);
      return {
        address: address(addr),
        hexValues: slots.map((s) => (s.value ? data(s.value) : '0x')),
        storageProof: slots.map((s) => s.proofOps),
      };
    }),
  };
}
