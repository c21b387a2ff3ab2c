/**
 * Validator-set hashing as CometBFT does it: each validator contributes the protobuf bytes of
 * `SimpleValidator{pub_key: crypto.PublicKey{ed25519}, voting_power}`, merged by the simple Merkle
 * tree in the set's order. CometBFT keeps a set sorted by voting power (descending), then address
 * (ascending); `sortValidatorSet` produces that order.
 */
import { compareBytes } from '../primitives/bytes.ts';
import { sha256 } from '../crypto/hash.ts';
import { CodecError } from './errors.ts';
import { merkleRoot } from './merkle.ts';
import { ProtoWriter } from './proto.ts';

export interface ValidatorInfo {
  /** Ed25519 public key, 32 bytes. */
  pubKey: Uint8Array;
  votingPower: bigint;
}

/** CometBFT validator address: the first 20 bytes of SHA-256 of the Ed25519 public key. */
export function validatorAddress(pubKey: Uint8Array): Uint8Array {
  return sha256(pubKey).subarray(0, 20);
}

/** `tendermint.crypto.PublicKey` with the ed25519 member of its oneof set (field 1). */
export function encodeEd25519PublicKey(pubKey: Uint8Array): Uint8Array {
  if (pubKey.length !== 32) throw new CodecError(`ed25519 public key must be 32 bytes, got ${pubKey.length}`);
  return new ProtoWriter().bytes(1, pubKey).finish();
}

export function simpleValidatorBytes(v: ValidatorInfo): Uint8Array {
  if (v.votingPower < 0n || v.votingPower >= 1n << 63n) {
    throw new CodecError(`voting power ${v.votingPower} is outside int64`);
  }
  return new ProtoWriter().message(1, encodeEd25519PublicKey(v.pubKey)).varint(2, v.votingPower).finish();
}

/** `validators_hash` / `next_validators_hash` of a set given in CometBFT order. */
export function validatorSetHash(validators: ValidatorInfo[]): Uint8Array {
  return merkleRoot(validators.map(simpleValidatorBytes));
}

/** A copy in CometBFT set order: voting power descending, then address ascending. */
export function sortValidatorSet<T extends ValidatorInfo>(validators: T[]): T[] {
  return validators
    .map((v) => ({ v, address: validatorAddress(v.pubKey) }))
    .sort((a, b) =>
      a.v.votingPower !== b.v.votingPower
        ? a.v.votingPower > b.v.votingPower
          ? -1
          : 1
        : compareBytes(a.address, b.address),
    )
    .map((x) => x.v);
}
