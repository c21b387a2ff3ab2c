/**
 * secp256k1 accounts seen from both sides (docs/adr/0013-one-key-two-addresses.md): the EVM address is the last 20 bytes of
 * keccak-256 of the uncompressed public key; the Cosmos address is RIPEMD-160(SHA-256(compressed key))
 * in bech32 with the chain's prefix.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bech32 } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { toHex } from '../primitives/bytes.ts';
import { BECH32_ACCOUNT_PREFIX, BECH32_VALOPER_PREFIX } from '../primitives/identity.ts';

export interface Account {
  privateKey: Uint8Array;
  /** 33-byte compressed public key */
  publicKey: Uint8Array;
  evmAddress: Uint8Array;
  cosmosAddress: Uint8Array;
}

export function accountFromPrivateKey(privateKey: Uint8Array): Account {
  const publicKey = secp256k1.getPublicKey(privateKey, true);
  const uncompressed = secp256k1.getPublicKey(privateKey, false);
  return {
    privateKey,
    publicKey,
    evmAddress: keccak_256(uncompressed.subarray(1)).subarray(12),
    cosmosAddress: ripemd160(sha256(publicKey)),
  };
}

/** Accounts 0..count-1 of a BIP-39 mnemonic on the Ethereum path m/44'/60'/0'/0/i. */
export function accountsFromMnemonic(mnemonic: string, count: number): Account[] {
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic));
  return Array.from({ length: count }, (_, i) =>
    accountFromPrivateKey(root.derive(`m/44'/60'/0'/0/${i}`).privateKey!),
  );
}

/**
 * Checksum forms by lowercase hex: the dev chain logs the sender and recipient of every transaction,
 * and a few addresses recur; each form costs a keccak. Cleared whole when full.
 */
const checksummed = new Map<string, string>();
const MAX_CHECKSUMMED = 4096;

/** EIP-55 mixed-case checksum form of a 20-byte address. */
export function toChecksumAddress(address: Uint8Array): string {
  const hex = toHex(address);
  let out = checksummed.get(hex);
  if (out !== undefined) return out;
  const hash = toHex(keccak_256(new TextEncoder().encode(hex)));
  out = '0x';
  for (let i = 0; i < hex.length; i++) out += parseInt(hash[i], 16) >= 8 ? hex[i].toUpperCase() : hex[i];
  if (checksummed.size >= MAX_CHECKSUMMED) checksummed.clear();
  checksummed.set(hex, out);
  return out;
}

export function toBech32(prefix: string, bytes: Uint8Array): string {
  return bech32.encode(prefix, bech32.toWords(bytes));
}

export function fromBech32(address: string, expectedPrefix: string): Uint8Array {
  const { prefix, words } = bech32.decode(address as `${string}1${string}`);
  if (prefix !== expectedPrefix)
    throw new Error(`address ${address} has prefix ${prefix}, expected ${expectedPrefix}`);
  return bech32.fromWords(words);
}

export const toAccAddress = (bytes: Uint8Array) => toBech32(BECH32_ACCOUNT_PREFIX, bytes);
export const toValoperAddress = (bytes: Uint8Array) => toBech32(BECH32_VALOPER_PREFIX, bytes);
