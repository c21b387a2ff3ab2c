/**
 * The explicit association transaction behind `chain_associate` (docs/adr/0013-one-key-two-addresses.md). It is a Cosmos `TxRaw`
 * with one message and, like the wrapper of an Ethereum tx (execution/tx-wrap.ts), no Cosmos
 * signature, no auth info and no fee: the secp256k1 signature inside the message authenticates it.
 *
 *   TxRaw { body_bytes = TxBody { messages = [ Any { type_url = "/chain.evm.v1.MsgAssociate",
 *                                                     value = MsgAssociate } ] } }
 *
 *   message MsgAssociate {
 *     bytes  custom_message = 1;  // the signed bytes, exactly as the client gave them
 *     bytes  r = 2;               // 32 bytes, big-endian
 *     bytes  s = 3;               // 32 bytes, big-endian
 *     uint32 v = 4;               // the recovery id, 0 or 1
 *   }
 *
 * The signer's key is recovered from the signature over keccak-256(custom_message) (no prefix is
 * added: a client wanting EIP-191 puts the prefixed text in custom_message). Execution links the
 * key's EVM and Cosmos addresses exactly as a first signed tx does. Why a tx and not a direct state
 * write: every state change must come from a block so that replay and every node agree; why no fee
 * and no sequence: the key may have no Cosmos account yet, and a repeat can do nothing (the key is
 * associated after the first), so admission and execution refuse it instead.
 *
 * Only the exact bytes `encodeAssociationTx` produces decode (re-encoding is compared), so one request
 * has one tx hash.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { Any } from 'cosmjs-types/google/protobuf/any';
import { putUvarint, readUvarint } from '../codec/varint.ts';
import { toAccAddress, toChecksumAddress } from '../crypto/accounts.ts';
import { equalBytes } from '../primitives/bytes.ts';
import type { StateOverlay, StateReader } from '../state/overlay.ts';
import { Auth } from './auth.ts';
import { Bank, BankReader } from './bank.ts';
import { CosmosTxError, SdkCode } from './cosmos-errors.ts';
import { Evm, EvmReader } from './evm.ts';

export const MSG_ASSOCIATE_TYPE_URL = '/chain.evm.v1.MsgAssociate';

/**
 * The gas an association tx is accounted with in its block (gas_wanted = gas_used). Fixed, because
 * nobody pays for it; it only keeps a block from holding an unbounded number of them.
 */
export const ASSOCIATION_GAS = 50_000n;

export interface AssociationRequest {
  customMessage: Uint8Array;
  /** 32 bytes each */
  r: Uint8Array;
  s: Uint8Array;
  /** recovery id */
  v: 0 | 1;
}

export interface Association extends AssociationRequest {
  /** 33-byte compressed key recovered from the signature */
  publicKey: Uint8Array;
  evmAddress: Uint8Array;
  /** RIPEMD-160(SHA-256(publicKey)) */
  cosmosAddress: Uint8Array;
}

const KEY_MESSAGE = 0x0a;
const KEY_R = 0x12;
const KEY_S = 0x1a;
const KEY_V = 0x20;

function bytesField(key: number, value: Uint8Array): Uint8Array {
  if (value.length === 0) return new Uint8Array(0); // proto3 omits empty bytes
  const out = new Uint8Array(1 + 10 + value.length);
  out[0] = key;
  const off = putUvarint(out, 1, value.length);
  out.set(value, off);
  return out.subarray(0, off + value.length);
}

export function encodeMsgAssociate(req: AssociationRequest): Uint8Array {
  return Buffer.concat([
    bytesField(KEY_MESSAGE, req.customMessage),
    bytesField(KEY_R, req.r),
    bytesField(KEY_S, req.s),
    req.v === 1 ? Uint8Array.of(KEY_V, 1) : new Uint8Array(0),
  ]);
}

/** The fields of a MsgAssociate; undefined for bytes that are not one (canonicity is checked later). */
export function decodeMsgAssociate(bytes: Uint8Array): AssociationRequest | undefined {
  const fields = new Map<number, Uint8Array | number>();
  try {
    let off = 0;
    while (off < bytes.length) {
      const key = bytes[off++];
      if (key === KEY_V) {
        const [v, next] = readUvarint(bytes, off);
        fields.set(key, v);
        off = next;
        continue;
      }
      if (key !== KEY_MESSAGE && key !== KEY_R && key !== KEY_S) return undefined;
      const [len, start] = readUvarint(bytes, off);
      if (start + len > bytes.length) return undefined;
      fields.set(key, bytes.subarray(start, start + len));
      off = start + len;
    }
  } catch {
    return undefined;
  }
  const v = fields.get(KEY_V) ?? 0;
  if (v !== 0 && v !== 1) return undefined;
  const asBytes = (k: number) => (fields.get(k) as Uint8Array | undefined) ?? new Uint8Array(0);
  return { customMessage: asBytes(KEY_MESSAGE), r: asBytes(KEY_R), s: asBytes(KEY_S), v };
}

/** The TxRaw bytes of an association request. */
export function encodeAssociationTx(req: AssociationRequest): Uint8Array {
  const bodyBytes = TxBody.encode(
    TxBody.fromPartial({
      messages: [Any.fromPartial({ typeUrl: MSG_ASSOCIATE_TYPE_URL, value: encodeMsgAssociate(req) })],
    }),
  ).finish();
  return TxRaw.encode(TxRaw.fromPartial({ bodyBytes })).finish();
}

/** Whether a TxRaw's body is an association (cheap: decides which decoder applies). */
export function isAssociationBody(body: TxBody): boolean {
  return body.messages.length === 1 && body.messages[0].typeUrl === MSG_ASSOCIATE_TYPE_URL;
}

/**
 * Decodes an association tx and recovers its signer. Throws CosmosTxError (the SDK's codes) for a tx
 * that is not exactly what `encodeAssociationTx` makes, or whose signature recovers no key.
 */
export function decodeAssociationTx(raw: Uint8Array, body: TxBody): Association {
  const req = decodeMsgAssociate(body.messages[0].value);
  if (!req || !equalBytes(encodeAssociationTx(req), raw)) {
    throw new CosmosTxError(
      SdkCode.TxDecode,
      'an association tx carries exactly one MsgAssociate {custom_message, r, s, v} and nothing else (no auth info, signatures, memo or other fields)',
    );
  }
  if (req.r.length !== 32 || req.s.length !== 32)
    throw new CosmosTxError(
      SdkCode.Unauthorized,
      `association signature: r and s must be 32 bytes each, got ${req.r.length} and ${req.s.length}`,
    );
  let publicKey: Uint8Array;
  try {
    publicKey = secp256k1.Signature.fromBytes(Buffer.concat([req.r, req.s]), 'compact')
      .addRecoveryBit(req.v)
      .recoverPublicKey(keccak_256(req.customMessage))
      .toBytes(true);
  } catch (err) {
    throw new CosmosTxError(
      SdkCode.Unauthorized,
      `association signature recovers no public key: ${(err as Error).message}`,
    );
  }
  const uncompressed = secp256k1.Point.fromBytes(publicKey).toBytes(false);
  return {
    ...req,
    publicKey,
    evmAddress: keccak_256(uncompressed.subarray(1)).subarray(12),
    cosmosAddress: ripemd160(sha256(publicKey)),
  };
}

/**
 * Admission and ante check (the same rule, so the mempool never admits what a block would refuse):
 * the key must not be associated yet, and one of its two addresses must hold at least 1 wei (the
 * only thing keeping fee-less association txs from being free to spam).
 */
export function checkAssociation(a: Association, state: StateReader): void {
  const evm = new EvmReader(state);
  const linkedCosmos = evm.cosmosAddressOf(a.evmAddress);
  const linkedEvm = evm.evmAddressOf(a.cosmosAddress);
  if (linkedCosmos || linkedEvm) {
    throw new CosmosTxError(
      SdkCode.InvalidRequest,
      `the key of ${toChecksumAddress(a.evmAddress)} is already associated: ${toChecksumAddress(linkedEvm ?? a.evmAddress)} ↔ ${toAccAddress(linkedCosmos ?? a.cosmosAddress)}`,
    );
  }
  const bank = new BankReader(state);
  if (bank.wei(a.evmAddress) < 1n && bank.wei(a.cosmosAddress) < 1n) {
    throw new CosmosTxError(
      SdkCode.InsufficientFunds,
      `neither ${toChecksumAddress(a.evmAddress)} nor ${toAccAddress(a.cosmosAddress)} holds any balance: an association needs at least 1 wei on one of them`,
    );
  }
}

/** Executes an association on the block's overlay; throws CosmosTxError (changing nothing) if refused. */
export function deliverAssociation(
  a: Association,
  overlay: StateOverlay,
): {
  code: 0;
  codespace: '';
  log: '';
  gasWanted: bigint;
  gasUsed: bigint;
  events: { type: string; attributes: { key: string; value: string; index: boolean }[] }[];
} {
  checkAssociation(a, overlay);
  const evm = new Evm(overlay);
  const bank = new Bank(overlay);
  const auth = new Auth(overlay);
  evm.associate(a.evmAddress, a.cosmosAddress);
  bank.transferWei(a.evmAddress, a.cosmosAddress, bank.wei(a.evmAddress));
  const account = auth.ensureAccount(a.cosmosAddress);
  if (!account.pubKey) auth.setAccount({ ...account, pubKey: a.publicKey });
  const attr = (key: string, value: string) => ({ key, value, index: true });
  return {
    code: 0,
    codespace: '',
    log: '',
    gasWanted: ASSOCIATION_GAS,
    gasUsed: ASSOCIATION_GAS,
    events: [
      {
        type: 'message',
        attributes: [attr('action', MSG_ASSOCIATE_TYPE_URL), attr('module', 'evm')],
      },
      {
        type: 'address_associated',
        attributes: [
          attr('evm_address', toChecksumAddress(a.evmAddress)),
          attr('cosmos_address', toAccAddress(a.cosmosAddress)),
        ],
      },
    ],
  };
}
