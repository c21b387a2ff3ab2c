/**
 * Signing with a key this node holds (a dev chain's accounts): Ethereum transactions, EIP-191
 * personal messages and EIP-712 typed data, each as geth and anvil sign them: deterministic
 * RFC 6979 signatures (no extra entropy), `v` 27/28 for messages.
 */
import { eip191Signer, signTyped, Transaction } from 'micro-eth-signer';
import { toHex } from '../primitives/bytes.ts';

export interface AccessListEntry {
  address: Uint8Array;
  storageKeys: Uint8Array[];
}

/** A transaction with every field decided: type 0 (legacy), 1 (EIP-2930) or 2 (EIP-1559). */
export interface UnsignedTx {
  type: 0 | 1 | 2;
  chainId: bigint;
  nonce: bigint;
  gasLimit: bigint;
  /** Absent: a contract creation. */
  to?: Uint8Array;
  value: bigint;
  data: Uint8Array;
  /** Types 0 and 1. */
  gasPrice?: bigint;
  /** Type 2. */
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  /** Types 1 and 2. */
  accessList?: AccessListEntry[];
}

const hex = (b: Uint8Array) => '0x' + toHex(b);
const fromHexString = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));

/** The signed transaction's bytes (what eth_sendRawTransaction takes). */
export function signTransaction(tx: UnsignedTx, privateKey: Uint8Array): Uint8Array {
  return prepare(tx).signBy(privateKey, false).toBytes();
}

/**
 * The bytes of an impersonated transaction (a dev chain's, sent as an account without its key): the
 * transaction with the placeholder signature r = s = 1, y-parity 0 that anvil gives such a tx, so
 * that it encodes, and is shown, as any signed one. Who sent it is recorded beside it, not recovered.
 */
export function impersonatedTransaction(tx: UnsignedTx): Uint8Array {
  const prepared = prepare(tx);
  const placeholder = { ...prepared.raw, r: 1n, s: 1n, yParity: 0 } as typeof prepared.raw;
  return new Transaction(prepared.type, placeholder, {
    allowSignatureFields: true,
    strict: false,
  }).toBytes();
}

function prepare(tx: UnsignedTx) {
  const common = {
    nonce: tx.nonce,
    gasLimit: tx.gasLimit,
    to: tx.to ? hex(tx.to) : '0x',
    value: tx.value,
    data: hex(tx.data),
  };
  const accessList = (tx.accessList ?? []).map((e) => ({
    address: hex(e.address),
    storageKeys: e.storageKeys.map(hex),
  }));
  // not strict: a dev chain's fees and nonces need not look like a wallet user's
  return tx.type === 0
    ? Transaction.prepare(
        { type: 'legacy', ...common, gasPrice: tx.gasPrice ?? 0n, chainId: tx.chainId },
        false,
      )
    : tx.type === 1
      ? Transaction.prepare(
          { type: 'eip2930', ...common, chainId: tx.chainId, gasPrice: tx.gasPrice ?? 0n, accessList },
          false,
        )
      : Transaction.prepare(
          {
            type: 'eip1559',
            ...common,
            chainId: tx.chainId,
            maxFeePerGas: tx.maxFeePerGas ?? 0n,
            maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? 0n,
            accessList,
          },
          false,
        );
}

/** An EIP-191 personal-message signature (eth_sign, personal_sign): r ‖ s ‖ v, v = 27 or 28. */
export function signPersonalMessage(message: Uint8Array, privateKey: Uint8Array): Uint8Array {
  return fromHexString(eip191Signer.sign(message, privateKey, false));
}

/** An EIP-712 signature of `typed` ({types, primaryType, domain, message}), as eth_signTypedData_v4. */
export function signTypedData(typed: unknown, privateKey: Uint8Array): Uint8Array {
  return fromHexString(signTyped(typed as Parameters<typeof signTyped>[0], privateKey, false));
}
