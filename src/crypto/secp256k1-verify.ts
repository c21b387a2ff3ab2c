/**
 * secp256k1 signature verification for Cosmos transactions (SIGN_MODE_DIRECT: a 64-byte r‖s over
 * SHA-256 of the sign doc). The native N-API binding is used when it loads; @noble/curves otherwise.
 * Both reject high-S signatures, as the Cosmos SDK does.
 */
import { createRequire } from 'node:module';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';

interface NativeVerify {
  ecdsaVerify(sig: Uint8Array, msg32: Uint8Array, pubkey: Uint8Array): boolean;
}

function loadNative(): NativeVerify | undefined {
  try {
    return createRequire(import.meta.url)('secp256k1/bindings.js') as NativeVerify;
  } catch {
    return undefined;
  }
}
const native = loadNative();

const HALF_N = secp256k1.Point.CURVE().n >> 1n;

/** True when `signature` (64-byte r‖s, low S) signs SHA-256(`message`) for the 33-byte `publicKey`. */
export function verifySecp256k1(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 33) return false;
  const s = BigInt('0x' + Buffer.from(signature.subarray(32)).toString('hex'));
  if (s === 0n || s > HALF_N) return false;
  const digest = sha256(message);
  try {
    if (native) return native.ecdsaVerify(signature, digest, publicKey);
    return secp256k1.verify(signature, digest, publicKey, { prehash: false, lowS: true });
  } catch {
    return false;
  }
}
