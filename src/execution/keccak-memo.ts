/**
 * keccak-256 for ethereumjs (Common's customCrypto), remembering short inputs. A block of token
 * transfers hashes the same few short preimages over and over: each receipt's bloom hashes the
 * token address, the event signature and the two account topics; each balance slot is keccak of
 * (holder ‖ slot); each sender's public key is hashed to its address at admission. In JavaScript
 * that was ~7% of the chain's CPU; a lookup costs a fraction of a hash.
 *
 * Only inputs up to 64 bytes are remembered (longer ones are hashed directly, as before), the table
 * is cleared whole when full, and every call returns a fresh copy (callers may keep or read the
 * result's buffer; ethereumjs's bloom reads `result.buffer` from offset 0).
 */
import { keccak_256 } from '@noble/hashes/sha3.js';

const MAX_INPUT = 64;
const MAX_ENTRIES = 32_768;
const memo = new Map<string, Uint8Array>();

export function keccak256Memo(data: Uint8Array): Uint8Array {
  if (data.length > MAX_INPUT) return keccak_256(data);
  const key = String.fromCharCode.apply(null, data as unknown as number[]);
  let h = memo.get(key);
  if (h === undefined) {
    if (memo.size >= MAX_ENTRIES) memo.clear();
    h = keccak_256(data);
    memo.set(key, h);
  }
  return h.slice();
}
