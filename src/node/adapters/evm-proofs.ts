/** rpc/evm's ProofReader: proofs of `evm` store slots from State Commit (IAVL chains only). */
import { evmKeys, STORES } from '../../app/store-keys.ts';
import { stateVersion } from '../../chain/chain.ts';
import type { ProofReader, SlotProof } from '../../rpc/evm/proof.ts';
import type { CommitStore } from '../../storage/sc/commit-store.ts';
import { ProofUnsupportedError } from '../../storage/sc/errors.ts';
import { ChainError } from '../../util/errors.ts';

export class NodeProofs implements ProofReader {
  private readonly sc: CommitStore;
  constructor(sc: CommitStore) {
    this.sc = sc;
  }

  async storageProofs(height: number, address: Uint8Array, slots: Uint8Array[]): Promise<SlotProof[]> {
    if (this.sc.stateCommitment !== 'iavl') throw new ProofUnsupportedError(STORES.evm);
    const out: SlotProof[] = [];
    for (const slot of slots) {
      try {
        const p = await this.sc.getProof(STORES.evm, evmKeys.storage(address, slot), stateVersion(height));
        out.push({ value: p.value, proofOps: p.proofOps });
      } catch (err) {
        if (err instanceof ChainError && err.code === 'SC_VERSION_UNAVAILABLE') {
          // heights, not SC versions (version = height + 1), in what the caller reads
          throw new ChainError(
            'PROOF_HEIGHT_UNAVAILABLE',
            `proofs at height ${height} are not available: State Commit no longer holds that state; it keeps the most recent heights and rebuilds older ones only from its snapshots, the oldest of which is at height ${this.sc.oldestVersion() - 1}`,
          );
        }
        throw err;
      }
    }
    return out;
  }
}
