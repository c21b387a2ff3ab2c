/**
 * Decoding and stateless validation of raw Ethereum transactions (legacy, EIP-2930, EIP-1559,
 * EIP-7702). The sender is recovered here, once, with the native secp256k1 binding, and cached inside
 * the frozen ethereumjs tx object so that the VM's `getSenderAddress()` during execution is free.
 * Everything the mempool and the block producer need is lifted into plain fields, so layers above
 * execution never touch ethereumjs objects.
 *
 * Checks that need the chain id or the signature run on the RLP values before ethereumjs constructs the
 * tx: ethereumjs throws generic errors for a foreign chain id or a high-s signature, and clients expect
 * geth's wording for those.
 */
import { RLP } from '@ethereumjs/rlp';
import {
  createAccessList2930TxFromBytesArray,
  create1559FeeMarketTxFromBytesArray,
  createEOACode7702TxFromBytesArray,
  createLegacyTxFromBytesArray,
  type AccessList2930Tx,
  type EOACode7702Tx,
  type FeeMarket1559Tx,
  type LegacyTx,
  paramsTx,
} from '@ethereumjs/tx';
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { Common } from '@ethereumjs/common';
import { Address } from '@ethereumjs/util';
import { ecrecover } from './ecrecover.ts';
import { ChainError, errorMessage } from '../util/errors.ts';
import { concatBytes } from '../primitives/bytes.ts';

import { unwrapEthTransaction } from './tx-wrap.ts';
import { unwrapDevRecord } from '../app/dev-records.ts';

export {
  MSG_EVM_TRANSACTION_TYPE_URL,
  decodeMsgEVMTransaction,
  encodeMsgEVMTransaction,
  unwrapEthTransaction,
  wrapEthTransaction,
} from './tx-wrap.ts';

/** 0 legacy, 1 EIP-2930 access list, 2 EIP-1559 fee market, 4 EIP-7702 set code. */
export type EthTxType = 0 | 1 | 2 | 4;

export type EthTx = LegacyTx | AccessList2930Tx | FeeMarket1559Tx | EOACode7702Tx;

export interface DecodedEthTx {
  /** The frozen ethereumjs transaction (sender already cached in it); for execution/ only. */
  readonly tx: EthTx;
  /** The bytes as received: the EIP-2718 envelope, or the RLP list of a legacy tx. */
  readonly raw: Uint8Array;
  /** keccak-256 of `raw`: the Ethereum transaction hash. */
  readonly hash: Uint8Array;
  readonly type: EthTxType;
  /** 20-byte address recovered from the signature. */
  readonly sender: Uint8Array;
  readonly nonce: bigint;
  readonly gasLimit: bigint;
  /** Fee cap; `gasPrice` for legacy and EIP-2930 txs. */
  readonly maxFeePerGas: bigint;
  /** Tip cap; `gasPrice` for legacy and EIP-2930 txs. */
  readonly maxPriorityFeePerGas: bigint;
  readonly value: bigint;
  /** Recipient, or null for a contract creation. */
  readonly to: Uint8Array | null;
  /** Signed chain id; undefined only for a pre-EIP-155 legacy tx. */
  readonly chainId: bigint | undefined;
  /**
   * The least gas limit the tx can have under the active rules: 21000 + calldata + creation +
   * init-code words + access list + 7702 authorizations, raised to the EIP-7623 calldata floor.
   */
  readonly intrinsicGas: bigint;
  /** `raw.length` in bytes. */
  readonly size: number;
  /**
   * A dev chain's impersonated tx: `sender` is who it was sent as, not who signed it (its signature
   * is a placeholder), and `hash` is keccak-256 of `raw ‖ sender`, so the same fields sent as two
   * senders are two txs. A block carries it as a dev record (app/dev-records.ts).
   */
  readonly impersonated?: true;
}

export type EthTxErrorReason =
  | 'malformed'
  | 'tx_type_not_supported'
  | 'invalid_chain_id'
  | 'invalid_signature'
  | 'invalid_sender'
  | 'tip_above_fee_cap';

/** A transaction that cannot be decoded or is invalid regardless of state. Message is geth's wording. */
export class EthTxError extends ChainError {
  readonly reason: EthTxErrorReason;
  constructor(reason: EthTxErrorReason, message: string, options?: { cause?: unknown }) {
    super('ETH_TX_INVALID', message, options);
    this.reason = reason;
  }
}

/** A configured decoder: what the mempool and block producer are handed (they cannot see Common). */
export type EthTxDecoder = (raw: Uint8Array, knownHash?: Uint8Array) => DecodedEthTx;

export function createEthTxDecoder(common: Common): EthTxDecoder {
  return (raw, knownHash) => decodeEthTransaction(raw, common, knownHash);
}

/**
 * ethereumjs gives every tx its own `common.copy()` and merges the tx params into it (a JSON deep
 * copy plus a params-cache rebuild): about a quarter of the decode cost. Txs decoded here share one
 * copy per chain Common instead, with the tx params merged once. Sharing is safe because our hardfork
 * is fixed for the life of the chain; the only ethereumjs code that mutates `tx.common` is runTx
 * aligning its hardfork with the block's, which is then the same for every tx anyway.
 */
const sharedTxCommons = new WeakMap<Common, Common>();

function txCommon(common: Common): Common {
  let shared = sharedTxCommons.get(common);
  if (shared === undefined) {
    const s = common.copy();
    s.updateParams(paramsTx);
    const update = s.updateParams.bind(s);
    s.copy = () => s;
    s.updateParams = (params) => (params === paramsTx ? s : update(params));
    sharedTxCommons.set(common, s);
    shared = s;
  }
  return shared;
}

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const SECP256K1_HALF_N = SECP256K1_N >> 1n;

const TYPE_ACCESS_LIST = 1;
const TYPE_FEE_MARKET = 2;
const TYPE_BLOB = 3;
const TYPE_SET_CODE = 4;

function toBig(b: Uint8Array): bigint {
  let n = 0n;
  for (let i = 0; i < b.length; i++) n = (n << 8n) | BigInt(b[i]);
  return n;
}

/** A scalar field of the RLP list; a nested list where bytes belong is malformed. */
function field(values: unknown[], i: number, name: string): Uint8Array {
  const v = values[i];
  if (!(v instanceof Uint8Array)) throw new EthTxError('malformed', `rlp: ${name} must be a byte string`);
  return v;
}

const EXPECTED_FIELDS: Record<number, number> = { 0: 9, 1: 11, 2: 12, 4: 13 };

/**
 * Decodes and validates what can be validated without state: envelope, RLP shape, chain id,
 * signature values, fee fields, and recovers the sender. Throws EthTxError.
 */
export function decodeEthTransaction(
  raw: Uint8Array,
  common: Common,
  knownHash?: Uint8Array,
  impersonatedSender?: Uint8Array,
): DecodedEthTx {
  if (raw.length === 0) throw new EthTxError('malformed', 'typed transaction too short');
  const first = raw[0];
  let type: EthTxType;
  if (first >= 0xc0) type = 0;
  else if (first === TYPE_ACCESS_LIST || first === TYPE_FEE_MARKET || first === TYPE_SET_CODE) type = first;
  else if (first < 0x80 || first === TYPE_BLOB) {
    throw new EthTxError('tx_type_not_supported', 'transaction type not supported');
  } else throw new EthTxError('malformed', 'rlp: expected input list for types.LegacyTx');

  let values: unknown;
  try {
    values = RLP.decode(type === 0 ? raw : raw.subarray(1));
  } catch (err) {
    throw new EthTxError('malformed', `rlp: ${errorMessage(err)}`, { cause: err });
  }
  if (!Array.isArray(values)) throw new EthTxError('malformed', 'rlp: expected input list');
  if (values.length !== EXPECTED_FIELDS[type]) {
    throw new EthTxError(
      'malformed',
      `rlp: expected ${EXPECTED_FIELDS[type]} fields for a signed type-${type} transaction, got ${values.length}`,
    );
  }

  const want = common.chainId();
  let chainId: bigint | undefined;
  const n = values.length;
  const v = toBig(field(values, n - 3, 'v'));
  const r = toBig(field(values, n - 2, 'r'));
  const s = toBig(field(values, n - 1, 's'));
  if (type === 0) {
    if (v === 27n || v === 28n) chainId = undefined;
    else if (v >= 35n) chainId = (v - 35n) >> 1n;
    else throw new EthTxError('invalid_signature', 'invalid transaction v, r, s values');
  } else {
    chainId = toBig(field(values, 0, 'chainId'));
    if (v > 1n) throw new EthTxError('invalid_signature', 'invalid transaction v, r, s values');
  }
  if (chainId !== undefined && chainId !== want) {
    throw new EthTxError('invalid_chain_id', `invalid chain id: have ${chainId} want ${want}`);
  }
  // EIP-2 (homestead): s in the lower half of the order; r and s non-zero and below the order.
  if (r === 0n || s === 0n || r >= SECP256K1_N || s > SECP256K1_HALF_N) {
    throw new EthTxError('invalid_signature', 'invalid transaction v, r, s values');
  }
  if (type === TYPE_FEE_MARKET || type === TYPE_SET_CODE) {
    const tip = toBig(field(values, 2, 'maxPriorityFeePerGas'));
    const feeCap = toBig(field(values, 3, 'maxFeePerGas'));
    if (tip > feeCap) {
      throw new EthTxError(
        'tip_above_fee_cap',
        `max priority fee per gas higher than max fee per gas: maxPriorityFeePerGas: ${tip}, maxFeePerGas: ${feeCap}`,
      );
    }
  }

  let tx: EthTx;
  try {
    // not frozen yet: the sender is cached in it below, then it is frozen as ethereumjs would
    const opts = { common: txCommon(common), freeze: false };
    // ethereumjs validates the remaining shape: leading zeroes, field sizes, access/authorization lists.
    if (type === 0) tx = createLegacyTxFromBytesArray(values as Uint8Array[], opts);
    else if (type === TYPE_ACCESS_LIST) tx = createAccessList2930TxFromBytesArray(values as never, opts);
    else if (type === TYPE_FEE_MARKET) tx = create1559FeeMarketTxFromBytesArray(values as never, opts);
    else tx = createEOACode7702TxFromBytesArray(values as never, opts);
  } catch (err) {
    throw new EthTxError('malformed', errorMessage(err), { cause: err });
  }

  let sender: Uint8Array;
  if (impersonatedSender) {
    sender = impersonatedSender.slice();
  } else {
    let publicKey: Uint8Array;
    try {
      publicKey = ecrecover(
        signingHash(type, values as Uint8Array[], chainId),
        v,
        field(values, n - 2, 'r'),
        field(values, n - 1, 's'),
        type === 0 ? chainId : undefined,
      );
    } catch (err) {
      throw new EthTxError('invalid_sender', 'invalid sender', { cause: err });
    }
    sender = keccak_256(publicKey).subarray(12);
    tx.cache.senderPubKey = publicKey;
  }
  // What ethereumjs would compute on every getSenderAddress() (a keccak of the public key each time
  // runTx asks) and on its own signature check (re-serializing every field of the tx to hash it).
  const senderAddress = new Address(sender);
  Object.defineProperty(tx, 'getSenderAddress', { value: () => senderAddress });
  Object.freeze(tx);

  const hash = impersonatedSender
    ? impersonatedTxHash(raw, impersonatedSender)
    : (knownHash ?? keccak_256(raw));
  // ethereumjs would re-serialize and hash on tx.hash(); the received bytes are the canonical encoding.
  if (tx.cache.hash === undefined) tx.cache.hash = hash;

  const isFeeMarket = type === TYPE_FEE_MARKET || type === TYPE_SET_CODE;
  const feeTx = tx as FeeMarket1559Tx;
  const priceTx = tx as LegacyTx;
  return Object.freeze({
    tx,
    raw,
    hash,
    type,
    sender,
    nonce: tx.nonce,
    gasLimit: tx.gasLimit,
    maxFeePerGas: isFeeMarket ? feeTx.maxFeePerGas : priceTx.gasPrice,
    maxPriorityFeePerGas: isFeeMarket ? feeTx.maxPriorityFeePerGas : priceTx.gasPrice,
    value: tx.value,
    to: tx.to === undefined ? null : tx.to.bytes,
    chainId,
    intrinsicGas: tx.getMinimumGasLimit(),
    size: raw.length,
    ...(impersonatedSender ? { impersonated: true as const } : {}),
  });
}

/** The hash of a dev chain's impersonated tx: keccak-256 of its bytes ‖ its sender. */
export function impersonatedTxHash(raw: Uint8Array, sender: Uint8Array): Uint8Array {
  return keccak_256(concatBytes(raw, sender));
}

/**
 * The Ethereum tx a stored block tx carries: a wrapped one, or a dev chain's impersonated one with
 * the sender it was sent as. Undefined for a Cosmos tx or a state patch.
 */
export function blockEthTransaction(
  txRaw: Uint8Array,
): { raw: Uint8Array; hash: Uint8Array; impersonatedBy?: Uint8Array } | undefined {
  const raw = unwrapEthTransaction(txRaw);
  if (raw) return { raw, hash: keccak_256(raw) };
  const dev = unwrapDevRecordQuietly(txRaw);
  return dev?.kind === 'impersonated'
    ? { raw: dev.raw, hash: impersonatedTxHash(dev.raw, dev.sender), impersonatedBy: dev.sender }
    : undefined;
}

function unwrapDevRecordQuietly(txRaw: Uint8Array) {
  try {
    return unwrapDevRecord(txRaw);
  } catch {
    return undefined; // a state patch that does not decode carries no Ethereum tx either
  }
}

/** A dev chain's tx sent as `sender` without its key (see DecodedEthTx.impersonated). */
export function decodeImpersonatedTransaction(
  raw: Uint8Array,
  sender: Uint8Array,
  common: Common,
): DecodedEthTx {
  return decodeEthTransaction(raw, common, undefined, sender);
}

/**
 * keccak-256 of what the sender signed, from the decoded RLP fields: the tx without v, r, s (typed:
 * behind its type byte; EIP-155 legacy: with chainId, 0, 0 in their place). ethereumjs rebuilds the
 * same bytes from its parsed fields; the received ones are already canonical, since ethereumjs refuses
 * leading zeroes in a scalar and this runs after its constructor.
 */
function signingHash(type: EthTxType, values: Uint8Array[], chainId: bigint | undefined): Uint8Array {
  const unsigned = values.slice(0, values.length - 3);
  if (type !== 0) {
    const body = RLP.encode(unsigned);
    const message = new Uint8Array(1 + body.length);
    message[0] = type;
    message.set(body, 1);
    return keccak_256(message);
  }
  if (chainId !== undefined) unsigned.push(unpaddedBytes(chainId), EMPTY, EMPTY);
  return keccak_256(RLP.encode(unsigned));
}

const EMPTY = new Uint8Array(0);

/** Minimal big-endian bytes of a non-negative integer, as RLP writes scalars. */
function unpaddedBytes(n: bigint): Uint8Array {
  const out: number[] = [];
  for (; n > 0n; n >>= 8n) out.unshift(Number(n & 0xffn));
  return Uint8Array.from(out);
}
