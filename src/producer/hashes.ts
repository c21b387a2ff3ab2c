/** Header hashes that summarise consensus data, computed as CometBFT computes them. */
import { sha256 } from '../crypto/hash.ts';
import { merkleRoot } from '../codec/merkle.ts';
import { ProtoWriter } from '../codec/proto.ts';

/** `consensus_hash`: SHA-256 of the HashedParams {block_max_bytes, block_max_gas} protobuf. */
export function consensusParamsHash(maxBytes: bigint, maxGas: bigint): Uint8Array {
  return sha256(new ProtoWriter().varint(1, maxBytes).varint(2, maxGas).finish());
}

export interface TxResultSummary {
  code: number;
  gasWanted: bigint;
  gasUsed: bigint;
}

/** `last_results_hash`: Merkle root of each tx's deterministic ExecTxResult {code, data, gas_wanted, gas_used}. */
export function resultsHash(results: TxResultSummary[]): Uint8Array {
  return merkleRoot(
    results.map((r) =>
      new ProtoWriter().varint(1, r.code).varint(5, r.gasWanted).varint(6, r.gasUsed).finish(),
    ),
  );
}
