/**
 * Decoding of signed Cosmos transactions (TxRaw, SIGN_MODE_DIRECT, one secp256k1 signer) into the
 * fields admission and execution need. Only bank MsgSend is executable; every decoding problem is a
 * CosmosTxError with the SDK's code.
 */
import { createHash } from 'node:crypto';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { AuthInfo, SignDoc, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { fromBech32 } from '../crypto/accounts.ts';
import { BASE_DENOM, BECH32_ACCOUNT_PREFIX } from '../primitives/identity.ts';
import { CosmosTxError, SdkCode } from './cosmos-errors.ts';
import {
  ASSOCIATION_GAS,
  type Association,
  decodeAssociationTx,
  isAssociationBody,
} from './association-tx.ts';

export const MSG_SEND_TYPE_URL = '/cosmos.bank.v1beta1.MsgSend';
const SECP256K1_PUBKEY_TYPE_URL = '/cosmos.crypto.secp256k1.PubKey';

export interface SendMsg {
  from: Uint8Array;
  to: Uint8Array;
  fromBech32: string;
  toBech32: string;
  /** uchain */
  amount: bigint;
}

export interface DecodedCosmosTx {
  raw: Uint8Array;
  /** SHA-256 of the TxRaw bytes (CometBFT's tx hash) */
  hash: Uint8Array;
  bodyBytes: Uint8Array;
  authInfoBytes: Uint8Array;
  signature: Uint8Array;
  /** 33-byte compressed secp256k1 key of the signer */
  publicKey: Uint8Array;
  /** RIPEMD-160(SHA-256(publicKey)) */
  signer: Uint8Array;
  sequence: bigint;
  gasLimit: bigint;
  /** fee in uchain */
  fee: bigint;
  memo: string;
  msgs: SendMsg[];
  /**
   * Set for the fee-less association tx of `chain_associate` (association-tx.ts): no Cosmos signature,
   * fee or sequence; `signer`/`publicKey` are the recovered key's, `msgs` is empty.
   */
  association?: Association;
}

export const MAX_MEMO_CHARACTERS = 256;

export function cosmosTxHash(raw: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(raw).digest());
}

/**
 * `simulate`: decoding for the tx service's Simulate, where (as in the SDK's simulate mode) an
 * unsigned tx may leave its sign mode unspecified: clients estimate gas before they sign.
 */
export function decodeCosmosTx(raw: Uint8Array, opts: { simulate?: boolean } = {}): DecodedCosmosTx {
  const fail = (code: number, message: string): never => {
    throw new CosmosTxError(code, message);
  };
  let txRaw: TxRaw;
  let body: TxBody;
  let authInfo: AuthInfo;
  try {
    txRaw = TxRaw.decode(raw);
    body = TxBody.decode(txRaw.bodyBytes);
    authInfo = AuthInfo.decode(txRaw.authInfoBytes);
  } catch (err) {
    return fail(SdkCode.TxDecode, `tx parse error: ${(err as Error).message}`);
  }
  if (isAssociationBody(body)) return associationTx(raw, body);
  if (body.messages.length === 0)
    fail(SdkCode.InvalidRequest, 'must contain at least one message: invalid request');
  if (body.memo.length > MAX_MEMO_CHARACTERS)
    fail(
      SdkCode.InvalidRequest,
      `maximum number of characters is ${MAX_MEMO_CHARACTERS} but received ${body.memo.length} characters: memo too large`,
    );
  if (authInfo.signerInfos.length !== 1 || txRaw.signatures.length !== 1) {
    fail(
      SdkCode.Unauthorized,
      `expected exactly one signer and one signature, got ${authInfo.signerInfos.length} and ${txRaw.signatures.length}: wrong number of signers`,
    );
  }
  const signerInfo = authInfo.signerInfos[0];
  const mode = signerInfo.modeInfo?.single?.mode;
  const unsignedSimulation =
    opts.simulate === true && txRaw.signatures[0].length === 0 && mode === SignMode.SIGN_MODE_UNSPECIFIED;
  if (mode !== SignMode.SIGN_MODE_DIRECT && !unsignedSimulation)
    fail(SdkCode.Unauthorized, 'only SIGN_MODE_DIRECT signatures are supported');
  if (signerInfo.publicKey?.typeUrl !== SECP256K1_PUBKEY_TYPE_URL)
    fail(
      SdkCode.InvalidPubKey,
      `unsupported public key type ${signerInfo.publicKey?.typeUrl ?? '(none)'}: only secp256k1 keys are supported`,
    );
  const publicKey = PubKey.decode(signerInfo.publicKey!.value).key;
  if (publicKey.length !== 33)
    fail(SdkCode.InvalidPubKey, `secp256k1 public key must be 33 bytes, got ${publicKey.length}`);
  const signer = ripemd160(sha256(publicKey));

  const fee = authInfo.fee;
  if (!fee) return fail(SdkCode.InsufficientFee, 'missing fee');
  let feeUchain = 0n;
  for (const c of fee.amount) {
    if (c.denom !== BASE_DENOM)
      fail(SdkCode.InvalidCoins, `fee denom ${c.denom} is not accepted: pay fees in ${BASE_DENOM}`);
    feeUchain += parseAmount(c.amount);
  }

  const msgs = body.messages.map((any, i): SendMsg => {
    if (any.typeUrl !== MSG_SEND_TYPE_URL)
      fail(
        SdkCode.UnknownRequest,
        `unrecognized message type ${any.typeUrl} at index ${i}: only ${MSG_SEND_TYPE_URL} is supported`,
      );
    let m: MsgSend;
    try {
      m = MsgSend.decode(any.value);
    } catch (err) {
      return fail(SdkCode.TxDecode, `message ${i}: ${(err as Error).message}`);
    }
    const from = address(m.fromAddress, 'from_address', fail);
    const to = address(m.toAddress, 'to_address', fail);
    let amount = 0n;
    if (m.amount.length === 0) fail(SdkCode.InvalidCoins, 'send amount is empty: invalid coins');
    for (const c of m.amount) {
      if (c.denom !== BASE_DENOM)
        fail(SdkCode.InvalidCoins, `unknown denom ${c.denom}: only ${BASE_DENOM} can be sent on this chain`);
      amount += parseAmount(c.amount);
    }
    if (amount === 0n) fail(SdkCode.InvalidCoins, `0${BASE_DENOM}: invalid coins`);
    if (Buffer.compare(Buffer.from(from), Buffer.from(signer)) !== 0) {
      fail(SdkCode.Unauthorized, `message ${i} sender ${m.fromAddress} is not the signer: unauthorized`);
    }
    return { from, to, fromBech32: m.fromAddress, toBech32: m.toAddress, amount };
  });

  return {
    raw,
    hash: cosmosTxHash(raw),
    bodyBytes: txRaw.bodyBytes,
    authInfoBytes: txRaw.authInfoBytes,
    signature: txRaw.signatures[0],
    publicKey,
    signer,
    sequence: signerInfo.sequence,
    gasLimit: fee.gasLimit,
    fee: feeUchain,
    memo: body.memo,
    msgs,
  };
}

function associationTx(raw: Uint8Array, body: TxBody): DecodedCosmosTx {
  const association = decodeAssociationTx(raw, body);
  return {
    raw,
    hash: cosmosTxHash(raw),
    bodyBytes: TxRaw.decode(raw).bodyBytes,
    authInfoBytes: new Uint8Array(0),
    signature: Buffer.concat([association.r, association.s, Uint8Array.of(association.v)]),
    publicKey: association.publicKey,
    signer: association.cosmosAddress,
    sequence: 0n,
    gasLimit: ASSOCIATION_GAS,
    fee: 0n,
    memo: '',
    msgs: [],
    association,
  };
}

/** The bytes the signer signed: SignDoc{body, auth_info, chain_id, account_number}. */
export function signDocBytes(tx: DecodedCosmosTx, chainId: string, accountNumber: bigint): Uint8Array {
  return SignDoc.encode({
    bodyBytes: tx.bodyBytes,
    authInfoBytes: tx.authInfoBytes,
    chainId,
    accountNumber,
  }).finish();
}

function parseAmount(s: string): bigint {
  if (!/^\d{1,77}$/.test(s))
    throw new CosmosTxError(SdkCode.InvalidCoins, `invalid amount ${JSON.stringify(s)}: invalid coins`);
  return BigInt(s);
}

function address(bech: string, field: string, fail: (code: number, m: string) => never): Uint8Array {
  try {
    return fromBech32(bech, BECH32_ACCOUNT_PREFIX);
  } catch (err) {
    return fail(
      SdkCode.InvalidAddress,
      `invalid ${field} ${JSON.stringify(bech)}: ${(err as Error).message}: invalid address`,
    );
  }
}
