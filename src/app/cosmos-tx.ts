/**
 * Decoding of signed Cosmos transactions (TxRaw, SIGN_MODE_DIRECT, one secp256k1 signer) into the
 * fields admission and execution need. The messages are those of msg-registry.ts; every decoding problem is a
 * CosmosTxError with the SDK's code.
 */
import { createHash } from 'node:crypto';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { AuthInfo, SignDoc, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { BASE_DENOM } from '../primitives/identity.ts';
import { CosmosTxError, SdkCode } from './cosmos-errors.ts';
import {
  ASSOCIATION_GAS,
  type Association,
  decodeAssociationTx,
  isAssociationBody,
} from './association-tx.ts';

import type { DecodedMsg } from './msg-kinds.ts';
import { MSG_KINDS } from './msg-registry.ts';
import { parseAmount } from './msg-send.ts';

export { MSG_SEND_TYPE_URL, type SendMsg, isSendMsg } from './msg-send.ts';
const SECP256K1_PUBKEY_TYPE_URL = '/cosmos.crypto.secp256k1.PubKey';

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
  /** Each message decoded by its kind (msg-registry.ts); `typeUrl` tells which. */
  msgs: DecodedMsg[];
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

  const msgs = body.messages.map((any, i): DecodedMsg => {
    const kind = MSG_KINDS.get(any.typeUrl);
    if (!kind)
      return fail(
        SdkCode.UnknownRequest,
        `unrecognized message type ${any.typeUrl} at index ${i}: supported: ${[...MSG_KINDS.keys()].join(', ')}`,
      );
    return kind.decode(any.value, signer, i);
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
