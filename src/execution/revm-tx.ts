/**
 * A block's Ethereum transaction on revm (the native addon's `execute`): the transaction is packed,
 * revm runs it over the block's overlay through synchronous state callbacks, and the changes it
 * answers are written back into the overlay here. The chain's rules around a transaction (address
 * association, the fee collector's base-fee share, failed-before-execution inclusion) stay in
 * BlockExecutor, so they hold for both engines (docs/adr/0033-blocks-on-revm.md).
 */
import { generateAddress } from '@ethereumjs/util';
import { Bank } from '../app/bank.ts';
import { EMPTY_CODE_HASH, Evm } from '../app/evm.ts';
import { evmKeys, STORES } from '../app/store-keys.ts';
import type { StateOverlay } from '../state/overlay.ts';
import type { EthLog, TxAddresses } from './outcome.ts';
import {
  type NativeHost,
  type NativeSimulator,
  type NativeTx,
  packAccount,
  putUint,
} from './simulation/native-binding.ts';
import type { DecodedEthTx } from './transactions.ts';

export interface RevmTxResult {
  /** 1 success, 0 reverted or halted */
  status: 0 | 1;
  /** after refunds and the EIP-7623 floor */
  gasUsed: bigint;
  /** return data, revert data, or a creation's runtime code */
  output: Uint8Array;
  /** the JS engine's words for a failure ("revert", "out of gas", …) */
  error?: string;
  logs: EthLog[];
  /** a creation's address (also when the creation failed, as ethereumjs reports it) */
  createdAddress: Uint8Array | null;
  addresses?: TxAddresses;
}

const FLAG_DELETE = 1;
const FLAG_CODE = 2;

/** The block transaction's fields as the crate's EXEC_TX_LEN header and `read_lists` layout. */
export function packTx(tx: DecodedEthTx): NativeTx {
  const header = new Uint8Array(131);
  const v = new DataView(header.buffer);
  header[0] = tx.type;
  header.set(tx.sender, 1);
  if (tx.to) {
    header[21] = 1;
    header.set(tx.to, 22);
  }
  putUint(v, 42, 32, tx.value);
  putUint(v, 74, 8, tx.gasLimit);
  putUint(v, 82, 16, tx.maxFeePerGas);
  putUint(v, 98, 16, tx.maxPriorityFeePerGas);
  putUint(v, 114, 8, tx.nonce);
  if (tx.chainId !== undefined) {
    header[122] = 1;
    putUint(v, 123, 8, tx.chainId);
  }
  return { header, data: tx.tx.data, lists: packLists(tx) };
}

const NO_LISTS = new Uint8Array(8);

function packLists(tx: DecodedEthTx): Uint8Array {
  const t = tx.tx as {
    accessList?: [Uint8Array, Uint8Array[]][];
    authorizationList?: Uint8Array[][];
  };
  const access = t.accessList ?? [];
  const auths = t.authorizationList ?? [];
  if (access.length === 0 && auths.length === 0) return NO_LISTS;
  let size = 8;
  for (const [, keys] of access) size += 24 + 32 * keys.length;
  size += auths.length * 125;
  const out = new Uint8Array(size);
  const v = new DataView(out.buffer);
  let at = 0;
  v.setUint32(at, access.length);
  at += 4;
  for (const [address, keys] of access) {
    out.set(address, at);
    v.setUint32(at + 20, keys.length);
    at += 24;
    for (const k of keys) {
      out.set(k, at + 32 - k.length);
      at += 32;
    }
  }
  v.setUint32(at, auths.length);
  at += 4;
  for (const [chainId, address, nonce, yParity, r, s] of auths) {
    // a field too long for its slot cannot be a valid authorization: yParity 2 makes revm skip it,
    // as ethereumjs skips one it cannot recover
    const fits =
      chainId.length <= 32 && nonce.length <= 8 && yParity.length <= 1 && r.length <= 32 && s.length <= 32;
    if (fits) {
      out.set(chainId, at + 32 - chainId.length);
      out.set(address, at + 32);
      out.set(nonce, at + 52 + 8 - nonce.length);
      out[at + 60] = yParity.length === 0 ? 0 : yParity[0];
      out.set(r, at + 61 + 32 - r.length);
      out.set(s, at + 93 + 32 - s.length);
    } else {
      out.set(address.subarray(0, 20), at + 32);
      out[at + 60] = 2;
    }
    at += 125;
  }
  return out;
}

/** State reads over the block's overlay: what the JS engine's state manager reads. */
export function overlayHost(
  overlay: StateOverlay,
  blockHash: (h: bigint) => Uint8Array | undefined,
): NativeHost {
  const evm = new Evm(overlay);
  const bank = new Bank(overlay);
  return {
    account(a) {
      const nonce = evm.nonce(a);
      const balance = bank.wei(evm.balanceAddressOf(a));
      const hasCode = evm.hasCode(a);
      if (nonce === 0n && balance === 0n && !hasCode) return undefined;
      return packAccount(balance, nonce, hasCode ? evm.codeHash(a) : EMPTY_CODE_HASH);
    },
    code: (a) => evm.code(a),
    storage: (a, slot) => evm.storage(a, slot),
    blockHash(h) {
      const height = new DataView(h.buffer, h.byteOffset, 8).getBigUint64(0);
      return blockHash(height);
    },
  };
}

/**
 * Runs `tx` on revm over `overlay` and writes its changes there: the result, or revm's reason when
 * the transaction cannot be included (nothing is written then).
 */
export function runTxOnRevm(
  native: NativeSimulator,
  tx: DecodedEthTx,
  block: Uint8Array,
  overlay: StateOverlay,
  host: NativeHost,
  collect: boolean,
): RevmTxResult | string {
  const answer = native.execute(packTx(tx), block, collect, host);
  if (typeof answer === 'string') return answer;
  const r = decodeExecution(answer, collect);
  applyChanges(overlay, r.accounts);
  return {
    status: r.status,
    gasUsed: r.gasUsed,
    output: r.output,
    ...(r.error !== undefined && { error: r.error }),
    logs: r.logs,
    createdAddress: tx.to === null ? generateAddress(tx.sender, bigintBytes(tx.nonce)) : null,
    ...(r.addresses && { addresses: r.addresses }),
  };
}

/** One touched account of a transaction as the addon answers it. */
export interface AccountChange {
  address: Uint8Array;
  /** selfdestructed in the transaction, or touched and empty (EIP-161): removed */
  deleted: boolean;
  balance: bigint;
  nonce: bigint;
  /** the new code, when it changed (empty: removed) */
  code?: Uint8Array;
  /** changed slots: [key, value], 32 bytes each */
  slots: [Uint8Array, Uint8Array][];
}

/** The addon's answer to `execute`, decoded (the crate's layout). */
export interface DecodedExecution {
  /** 1 success, 0 reverted or halted */
  status: 0 | 1;
  gasUsed: bigint;
  output: Uint8Array;
  error?: string;
  logs: EthLog[];
  accounts: AccountChange[];
  addresses?: TxAddresses;
}

/** Reads `execute`'s answer; `collect`: the call asked for the call tree's addresses. */
export function decodeExecution(b: Uint8Array, collect: boolean): DecodedExecution {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const status = b[0];
  const gasUsed = v.getBigUint64(1);
  let at = 30;
  const outLen = v.getUint32(at);
  const output = b.slice(at + 4, at + 4 + outLen);
  at += 4 + outLen;
  const errLen = v.getUint16(at);
  const error =
    errLen === 0 ? undefined : Buffer.from(b.buffer, b.byteOffset + at + 2, errLen).toString('latin1');
  at += 2 + errLen;
  const logs: EthLog[] = [];
  const logCount = v.getUint32(at);
  at += 4;
  for (let i = 0; i < logCount; i++) {
    const address = b.slice(at, at + 20);
    const n = b[at + 20];
    at += 21;
    const topics: Uint8Array[] = [];
    for (let t = 0; t < n; t++, at += 32) topics.push(b.slice(at, at + 32));
    const len = v.getUint32(at);
    logs.push({ address, topics, data: b.slice(at + 4, at + 4 + len) });
    at += 4 + len;
  }
  const accounts: AccountChange[] = [];
  const accountCount = v.getUint32(at);
  at += 4;
  for (let i = 0; i < accountCount; i++) {
    const address = b.slice(at, at + 20);
    const flags = b[at + 20];
    at += 21;
    const balance = readUint(v, at, 32);
    const nonce = v.getBigUint64(at + 32);
    at += 40;
    let code: Uint8Array | undefined;
    if (flags & FLAG_CODE) {
      const len = v.getUint32(at);
      code = b.slice(at + 4, at + 4 + len);
      at += 4 + len;
    }
    const slots: [Uint8Array, Uint8Array][] = [];
    const slotCount = v.getUint32(at);
    at += 4;
    for (let s = 0; s < slotCount; s++, at += 64)
      slots.push([b.slice(at, at + 32), b.slice(at + 32, at + 64)]);
    accounts.push({
      address,
      deleted: (flags & FLAG_DELETE) !== 0,
      balance,
      nonce,
      ...(code && { code }),
      slots,
    });
  }
  let addresses: TxAddresses | undefined;
  if (collect) {
    const list = () => {
      const n = v.getUint32(at);
      at += 4;
      const out: Uint8Array[] = [];
      for (let i = 0; i < n; i++, at += 20) out.push(b.slice(at, at + 20));
      return out;
    };
    const created = list();
    addresses = { created, internal: list() };
  }
  return {
    status: status === 0 ? 1 : 0,
    gasUsed,
    output,
    ...(error !== undefined && { error }),
    logs,
    accounts,
    ...(addresses && { addresses }),
  };
}

/** Writes a transaction's account changes into the block's overlay, as the JS engine's state manager would leave them. */
function applyChanges(overlay: StateOverlay, accounts: AccountChange[]): void {
  const evm = new Evm(overlay);
  const bank = new Bank(overlay);
  for (const a of accounts) {
    if (a.deleted) {
      // as the JS engine's state manager deletes an account (slots written in this block included)
      evm.setNonce(a.address, 0n);
      bank.setWei(evm.balanceAddressOf(a.address), 0n);
      evm.setCode(a.address, new Uint8Array(0));
      for (const key of overlay.bufferedKeys(STORES.evm, evmKeys.storagePrefix(a.address)))
        overlay.delete(STORES.evm, key);
      continue;
    }
    evm.setNonce(a.address, a.nonce);
    bank.setWei(evm.balanceAddressOf(a.address), a.balance);
    if (a.code) evm.setCode(a.address, a.code);
    for (const [key, value] of a.slots) evm.setStorage(a.address, key, value);
  }
}

function readUint(v: DataView, at: number, len: number): bigint {
  let n = 0n;
  for (let i = 0; i < len; i += 8) n = (n << 64n) | v.getBigUint64(at + i);
  return n;
}

function bigintBytes(n: bigint): Uint8Array {
  if (n === 0n) return new Uint8Array(0);
  const hex = n.toString(16);
  return Uint8Array.from(Buffer.from(hex.length % 2 ? '0' + hex : hex, 'hex'));
}
