/**
 * secp256k1 public-key recovery for transaction senders and the ECRECOVER precompile.
 *
 * The native `secp256k1` N-API binding recovers ~25x faster than pure JS, and recovery is the dominant
 * cost of admitting a transaction. We load `secp256k1/bindings.js` directly: the package's own entry
 * point silently falls back to its `elliptic` JS port when the addon cannot load, and we would rather
 * fall back to `@noble/curves` (audited, and what ethereumjs itself uses) than to elliptic.
 */
import { createRequire } from 'node:module';
import { secp256k1 as noble } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';

/** Recovers the 64-byte uncompressed public key (no 0x04 prefix) from a 64-byte r‖s, recovery id 0/1. */
export type RecoverPublicKey = (msgHash: Uint8Array, rs: Uint8Array, recoveryId: 0 | 1) => Uint8Array;

interface NativeSecp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed?: boolean): Uint8Array;
}

function loadNative(): NativeSecp256k1 | undefined {
  try {
    const require = createRequire(import.meta.url);
    return require('secp256k1/bindings.js') as NativeSecp256k1;
  } catch {
    return undefined;
  }
}

const native = loadNative();

/** Which implementation `recoverPublicKey` uses; `native` on every supported platform. */
export const ECRECOVER_BACKEND: 'native' | 'noble' = native ? 'native' : 'noble';

export const recoverPublicKeyNative: RecoverPublicKey | undefined = native
  ? (msgHash, rs, recoveryId) => native.ecdsaRecover(rs, recoveryId, msgHash, false).subarray(1)
  : undefined;

export const recoverPublicKeyNoble: RecoverPublicKey = (msgHash, rs, recoveryId) =>
  noble.Signature.fromBytes(rs, 'compact')
    .addRecoveryBit(recoveryId)
    .recoverPublicKey(msgHash)
    .toBytes(false)
    .subarray(1);

export const recoverPublicKey: RecoverPublicKey = recoverPublicKeyNative ?? recoverPublicKeyNoble;

/** Left-pads a big-endian scalar to 32 bytes; longer input is not a valid secp256k1 scalar. */
function scalar32(b: Uint8Array, out: Uint8Array, offset: number): void {
  if (b.length > 32) throw new RangeError(`signature scalar of ${b.length} bytes (max 32)`);
  out.set(b, offset + 32 - b.length);
}

/**
 * The recovery id from an Ethereum `v`: 0/1 (typed txs' yParity), 27/28 (pre-EIP-155 and the
 * precompile), or `chainId * 2 + 35/36` (EIP-155) when `chainId` is given.
 */
export function recoveryIdFromV(v: bigint, chainId?: bigint): 0 | 1 {
  let id: bigint;
  if (v === 0n || v === 1n) id = v;
  else if (chainId === undefined) id = v - 27n;
  else id = v - (chainId * 2n + 35n);
  if (id !== 0n && id !== 1n) throw new RangeError(`invalid signature v value ${v}`);
  return Number(id) as 0 | 1;
}

function rsBytes(r: Uint8Array, s: Uint8Array): Uint8Array {
  const rs = new Uint8Array(64);
  scalar32(r, rs, 0);
  scalar32(s, rs, 32);
  return rs;
}

/**
 * The `customCrypto.ecrecover` of `@ethereumjs/common`: same contract as `@ethereumjs/util`'s
 * `ecrecover` (64-byte public key; throws on an invalid signature), backed by the native binding.
 */
export function ecrecover(
  msgHash: Uint8Array,
  v: bigint,
  r: Uint8Array,
  s: Uint8Array,
  chainId?: bigint,
): Uint8Array {
  return recoverPublicKey(msgHash, rsBytes(r, s), recoveryIdFromV(v, chainId));
}

/** EVM address (last 20 bytes of keccak-256) of a 64-byte uncompressed public key. */
export function publicKeyToAddress(publicKey64: Uint8Array): Uint8Array {
  return keccak_256(publicKey64).subarray(12);
}

/**
 * The 20-byte address that signed `msgHash`. `v` is a yParity (0/1) or 27/28; r and s are big-endian
 * (any length up to 32 bytes) or bigints. Throws a RangeError/Error if the signature does not recover.
 */
export function recoverAddress(
  msgHash: Uint8Array,
  v: bigint | number,
  r: Uint8Array | bigint,
  s: Uint8Array | bigint,
): Uint8Array {
  const rs = new Uint8Array(64);
  writeScalar(r, rs, 0);
  writeScalar(s, rs, 32);
  return publicKeyToAddress(recoverPublicKey(msgHash, rs, recoveryIdFromV(BigInt(v))));
}

function writeScalar(x: Uint8Array | bigint, out: Uint8Array, offset: number): void {
  if (typeof x !== 'bigint') return scalar32(x, out, offset);
  if (x < 0n || x >= 1n << 256n) throw new RangeError('signature scalar out of range');
  for (let i = 31; i >= 0; i--, x >>= 8n) out[offset + i] = Number(x & 0xffn);
}
