/**
 * Ed25519 keys of the node (P2P identity) and of the validator (block signing), in CometBFT's JSON
 * shapes so that operators' tooling reads them unchanged.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { toHex } from '../primitives/bytes.ts';

export interface Ed25519Key {
  /** 32-byte seed */
  seed: Uint8Array;
  /** 32-byte public key */
  publicKey: Uint8Array;
}

export function generateEd25519(): Ed25519Key {
  const { privateKey } = generateKeyPairSync('ed25519');
  return ed25519FromSeed(new Uint8Array(Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url')));
}

export function ed25519FromSeed(seed: Uint8Array): Ed25519Key {
  if (seed.length !== 32) throw new Error(`ed25519 seed must be 32 bytes, got ${seed.length}`);
  // node:crypto takes a raw seed only inside PKCS#8; this prefix is the fixed DER header for Ed25519.
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  const x = createPublicKey(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' })).export({
    format: 'jwk',
  }).x!;
  return { seed: seed.slice(), publicKey: new Uint8Array(Buffer.from(x, 'base64url')) };
}

/** CometBFT address of an Ed25519 key: the first 20 bytes of SHA-256 of the public key. */
export function ed25519Address(publicKey: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(publicKey).digest().subarray(0, 20));
}

/** Node ID: lower-case hex of the key's address. */
export function nodeIdOf(publicKey: Uint8Array): string {
  return toHex(ed25519Address(publicKey));
}

export interface NodeKeyJson {
  id: string;
  priv_key: { type: 'tendermint/PrivKeyEd25519'; value: string };
}

export interface PrivValidatorKeyJson {
  address: string;
  pub_key: { type: 'tendermint/PubKeyEd25519'; value: string };
  priv_key: { type: 'tendermint/PrivKeyEd25519'; value: string };
}

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
/** CometBFT stores the 64-byte form: seed followed by public key. */
const privValue = (k: Ed25519Key) => b64(new Uint8Array([...k.seed, ...k.publicKey]));

export function nodeKeyJson(k: Ed25519Key): NodeKeyJson {
  return { id: nodeIdOf(k.publicKey), priv_key: { type: 'tendermint/PrivKeyEd25519', value: privValue(k) } };
}

export function privValidatorKeyJson(k: Ed25519Key): PrivValidatorKeyJson {
  return {
    address: toHex(ed25519Address(k.publicKey)).toUpperCase(),
    pub_key: { type: 'tendermint/PubKeyEd25519', value: b64(k.publicKey) },
    priv_key: { type: 'tendermint/PrivKeyEd25519', value: privValue(k) },
  };
}

/** Reads the key back from either JSON shape, checking that seed and public key agree. */
export function ed25519FromJson(
  json: { priv_key?: { type?: string; value?: string } },
  what: string,
): Ed25519Key {
  const value = json?.priv_key?.value;
  if (json?.priv_key?.type !== 'tendermint/PrivKeyEd25519' || typeof value !== 'string') {
    throw new Error(`${what}: priv_key must be {"type":"tendermint/PrivKeyEd25519","value":"<base64>"}`);
  }
  const raw = new Uint8Array(Buffer.from(value, 'base64'));
  if (raw.length !== 64)
    throw new Error(`${what}: priv_key.value must be 64 bytes of base64, got ${raw.length}`);
  const key = ed25519FromSeed(raw.subarray(0, 32));
  if (toHex(key.publicKey) !== toHex(raw.subarray(32))) {
    throw new Error(`${what}: priv_key.value's public half does not match its seed`);
  }
  return key;
}

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * OpenSSL key objects by key and seed: a validator signs every block with the same key, and parsing
 * the DER key each time cost more than the signature. The seed is part of the match, so a caller
 * that changes a key's seed in place still signs with the new one.
 */
const privateKeys = new WeakMap<Ed25519Key, { seed: string; key: KeyObject }>();

export function ed25519Sign(key: Ed25519Key, message: Uint8Array): Uint8Array {
  const seed = toHex(key.seed);
  let cached = privateKeys.get(key);
  if (cached === undefined || cached.seed !== seed) {
    cached = {
      seed,
      key: createPrivateKey({
        key: Buffer.concat([PKCS8_ED25519_PREFIX, key.seed]),
        format: 'der',
        type: 'pkcs8',
      }),
    };
    privateKeys.set(key, cached);
  }
  return new Uint8Array(sign(null, message, cached.key));
}

export function ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  const key = createPublicKey({
    key: Buffer.concat([SPKI_ED25519_PREFIX, publicKey]),
    format: 'der',
    type: 'spki',
  });
  return verify(null, message, key, signature);
}
