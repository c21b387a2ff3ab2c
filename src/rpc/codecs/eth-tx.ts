/**
 * The fields of a raw Ethereum transaction (legacy, EIP-2930, EIP-1559, EIP-7702), read from its
 * bytes for the RPC's transaction objects. Blocks store each Ethereum tx's raw bytes (wrapped in a
 * TxRaw); reading them here keeps rpc/ independent of ethereumjs and needs no signature recovery:
 * the sender comes from the receipt (mined) or the mempool (pending).
 */
import type { AccessListItem, Authorization } from '../../execution/simulation/simulate.ts';
import { CodecError } from './errors.ts';
import { type RlpItem, rlpDecode } from './rlp.ts';

export interface EthTxFields {
  type: 0 | 1 | 2 | 4;
  /** undefined only for a pre-EIP-155 legacy tx */
  chainId: bigint | undefined;
  nonce: bigint;
  /** legacy / 2930 */
  gasPrice?: bigint;
  /** 1559 / 7702 */
  maxPriorityFeePerGas?: bigint;
  maxFeePerGas?: bigint;
  gas: bigint;
  to: Uint8Array | null;
  value: bigint;
  input: Uint8Array;
  accessList?: AccessListItem[];
  authorizationList?: Authorization[];
  /** legacy: 27/28 or the EIP-155 value; typed: the y parity */
  v: bigint;
  r: bigint;
  s: bigint;
}

function big(item: RlpItem, name: string): bigint {
  const b = bytes(item, name);
  let n = 0n;
  for (let i = 0; i < b.length; i++) n = (n << 8n) | BigInt(b[i]);
  return n;
}

function bytes(item: RlpItem, name: string): Uint8Array {
  if (!(item instanceof Uint8Array)) throw new CodecError(`rlp: ${name} must be a byte string`);
  return item;
}

function items(item: RlpItem, name: string): RlpItem[] {
  if (!Array.isArray(item)) throw new CodecError(`rlp: ${name} must be a list`);
  return item;
}

function to(item: RlpItem): Uint8Array | null {
  const b = bytes(item, 'to');
  return b.length === 0 ? null : b;
}

function accessList(item: RlpItem): AccessListItem[] {
  return items(item, 'accessList').map((e) => {
    const [a, keys] = items(e, 'access list entry');
    return {
      address: bytes(a, 'address'),
      storageKeys: items(keys, 'storageKeys').map((k) => bytes(k, 'key')),
    };
  });
}

function authorizations(item: RlpItem): Authorization[] {
  return items(item, 'authorizationList').map((e) => {
    const f = items(e, 'authorization');
    if (f.length !== 6) throw new CodecError('rlp: an authorization has 6 fields');
    return {
      chainId: big(f[0], 'chainId'),
      address: bytes(f[1], 'address'),
      nonce: big(f[2], 'nonce'),
      yParity: big(f[3], 'yParity'),
      r: big(f[4], 'r'),
      s: big(f[5], 's'),
    };
  });
}

const FIELD_COUNTS: Record<number, number> = { 0: 9, 1: 11, 2: 12, 4: 13 };

export function parseEthTx(raw: Uint8Array): EthTxFields {
  if (raw.length === 0) throw new CodecError('empty transaction');
  const type = raw[0] >= 0xc0 ? 0 : raw[0];
  if (type !== 0 && type !== 1 && type !== 2 && type !== 4)
    throw new CodecError(`transaction type ${type} not supported`);
  const f = items(rlpDecode(type === 0 ? raw : raw.subarray(1)), 'transaction');
  if (f.length !== FIELD_COUNTS[type])
    throw new CodecError(`rlp: a type-${type} transaction has ${FIELD_COUNTS[type]} fields, got ${f.length}`);
  const sig = (i: number) => ({ v: big(f[i], 'v'), r: big(f[i + 1], 'r'), s: big(f[i + 2], 's') });
  if (type === 0) {
    const { v, r, s } = sig(6);
    return {
      type,
      chainId: v === 27n || v === 28n ? undefined : (v - 35n) >> 1n,
      nonce: big(f[0], 'nonce'),
      gasPrice: big(f[1], 'gasPrice'),
      gas: big(f[2], 'gas'),
      to: to(f[3]),
      value: big(f[4], 'value'),
      input: bytes(f[5], 'data'),
      v,
      r,
      s,
    };
  }
  if (type === 1) {
    return {
      type,
      chainId: big(f[0], 'chainId'),
      nonce: big(f[1], 'nonce'),
      gasPrice: big(f[2], 'gasPrice'),
      gas: big(f[3], 'gas'),
      to: to(f[4]),
      value: big(f[5], 'value'),
      input: bytes(f[6], 'data'),
      accessList: accessList(f[7]),
      ...sig(8),
    };
  }
  return {
    type,
    chainId: big(f[0], 'chainId'),
    nonce: big(f[1], 'nonce'),
    maxPriorityFeePerGas: big(f[2], 'maxPriorityFeePerGas'),
    maxFeePerGas: big(f[3], 'maxFeePerGas'),
    gas: big(f[4], 'gas'),
    to: to(f[5]),
    value: big(f[6], 'value'),
    input: bytes(f[7], 'data'),
    accessList: accessList(f[8]),
    ...(type === 4 ? { authorizationList: authorizations(f[9]), ...sig(10) } : sig(9)),
  };
}
