/**
 * The CometBFT block header and its hash: the RFC-6962 Merkle root of the protobuf
 * encodings of the 14 header fields, in header order, exactly as CometBFT's `Header.Hash()` computes
 * it, so standard light-client code verifies our headers. Scalars are wrapped in gogo's single-field
 * wrapper messages (StringValue, Int64Value, BytesValue); structs are their own message bytes.
 */
import { sha256 } from '../crypto/hash.ts';
import {
  encodeBlockId,
  encodeBytesValue,
  encodeConsensusVersion,
  encodeInt64Value,
  encodeStringValue,
  encodeTimestamp,
  type BlockID,
  type ConsensusVersion,
  type Timestamp,
} from './cometbft.ts';
import { CodecError } from './errors.ts';
import { merkleRoot } from './merkle.ts';

export interface Header {
  version: ConsensusVersion;
  chainId: string;
  height: number;
  time: Timestamp;
  lastBlockId: BlockID;
  lastCommitHash: Uint8Array;
  dataHash: Uint8Array;
  validatorsHash: Uint8Array;
  nextValidatorsHash: Uint8Array;
  consensusHash: Uint8Array;
  /** State after the previous block. */
  appHash: Uint8Array;
  lastResultsHash: Uint8Array;
  evidenceHash: Uint8Array;
  proposerAddress: Uint8Array;
}

/** The 14 leaves of the header hash, in order. */
export function headerFieldEncodings(h: Header): Uint8Array[] {
  if (!Number.isSafeInteger(h.height) || h.height < 0) {
    throw new CodecError(`header height ${h.height} is not a non-negative integer`);
  }
  return [
    encodeConsensusVersion(h.version),
    encodeStringValue(h.chainId),
    encodeInt64Value(h.height),
    encodeTimestamp(h.time),
    encodeBlockId(h.lastBlockId),
    encodeBytesValue(h.lastCommitHash),
    encodeBytesValue(h.dataHash),
    encodeBytesValue(h.validatorsHash),
    encodeBytesValue(h.nextValidatorsHash),
    encodeBytesValue(h.consensusHash),
    encodeBytesValue(h.appHash),
    encodeBytesValue(h.lastResultsHash),
    encodeBytesValue(h.evidenceHash),
    encodeBytesValue(h.proposerAddress),
  ];
}

/**
 * The block hash. `undefined` when validators_hash is empty: CometBFT treats such a header as
 * incomplete and returns a nil hash, and so must we (a hash of it would match no other node's).
 */
export function headerHash(h: Header): Uint8Array | undefined {
  if (h.validatorsHash.length === 0) return undefined;
  return merkleRoot(headerFieldEncodings(h));
}

/** SHA-256 of one transaction's bytes: its Tendermint/Cosmos hash (docs/adr/0012-every-tx-is-a-cosmos-txraw.md). */
export function txHash(tx: Uint8Array): Uint8Array {
  return sha256(tx);
}

/**
 * `data_hash`: Merkle root over SHA-256 of each tx, in block order (CometBFT `Txs.Hash()`); an empty
 * block's data hash is SHA-256 of nothing.
 */
export function dataHash(txs: Uint8Array[]): Uint8Array {
  return merkleRoot(txs.map(txHash));
}
