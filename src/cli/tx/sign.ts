/**
 * A Cosmos tx as the chain decodes it (TxRaw, SIGN_MODE_DIRECT, one secp256k1 signer, fee in uchain):
 * the body and auth info, the SignDoc over them, and the 64-byte low-S signature over its SHA-256.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { AuthInfo, SignDoc, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { Account } from '../../crypto/accounts.ts';
import { BASE_DENOM } from '../../primitives/identity.ts';

const SECP256K1_PUBKEY_TYPE_URL = '/cosmos.crypto.secp256k1.PubKey';

export interface TxParams {
  messages: Any[];
  memo: string;
  signer: Account;
  chainId: string;
  accountNumber: bigint;
  sequence: bigint;
  gasLimit: bigint;
  /** uchain */
  fee: bigint;
}

function bodyBytes(messages: Any[], memo: string): Uint8Array {
  return TxBody.encode(TxBody.fromPartial({ messages, memo })).finish();
}

function authInfoBytes(p: TxParams, mode: SignMode): Uint8Array {
  return AuthInfo.encode(
    AuthInfo.fromPartial({
      signerInfos: [
        {
          publicKey: {
            typeUrl: SECP256K1_PUBKEY_TYPE_URL,
            value: PubKey.encode({ key: p.signer.publicKey }).finish(),
          },
          modeInfo: { single: { mode } },
          sequence: p.sequence,
        },
      ],
      fee: {
        amount: p.fee === 0n ? [] : [{ denom: BASE_DENOM, amount: p.fee.toString() }],
        gasLimit: p.gasLimit,
      },
    }),
  ).finish();
}

/** The signed TxRaw bytes. */
export function signTx(p: TxParams): Uint8Array {
  const body = bodyBytes(p.messages, p.memo);
  const authInfo = authInfoBytes(p, SignMode.SIGN_MODE_DIRECT);
  const doc = SignDoc.encode({
    bodyBytes: body,
    authInfoBytes: authInfo,
    chainId: p.chainId,
    accountNumber: p.accountNumber,
  }).finish();
  const signature = secp256k1.sign(sha256(doc), p.signer.privateKey, { prehash: false, lowS: true });
  return TxRaw.encode({ bodyBytes: body, authInfoBytes: authInfo, signatures: [signature] }).finish();
}

/**
 * The tx for Simulate before it is signed, as CosmJS sends it: no signature, sign mode unspecified,
 * no fee and gas 0 (the node meters it against the block's gas and charges a signature's size).
 */
export function unsignedForSimulation(p: Omit<TxParams, 'gasLimit' | 'fee' | 'chainId' | 'accountNumber'>) {
  const body = bodyBytes(p.messages, p.memo);
  const authInfo = authInfoBytes(
    { ...p, gasLimit: 0n, fee: 0n, chainId: '', accountNumber: 0n },
    SignMode.SIGN_MODE_UNSPECIFIED,
  );
  return TxRaw.encode({ bodyBytes: body, authInfoBytes: authInfo, signatures: [new Uint8Array(0)] }).finish();
}
