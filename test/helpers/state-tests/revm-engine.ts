/**
 * revm as chaind's block executor runs it: the native addon's `execute`, given the case's
 * transaction packed as the block executor packs a block's (src/execution/revm-tx.ts), reading the
 * pre-state through the same synchronous callbacks, and answering the changes it made. The changes
 * are applied to the pre-state here, as the block executor applies them to a block's overlay
 * (deleted accounts, changed code, changed slots), and the post-state root is the Merkle root of the
 * result (a MerkleStateManager's), so it is judged against the test's expected root like any engine.
 */
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { LegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { Address, bytesToHex, createAccount, hexToBytes, setLengthLeft, unpadBytes } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { type AccountChange, decodeExecution, packTx } from '../../../src/execution/revm-tx.ts';
import {
  nativeSimulator,
  packAccount,
  packBlock,
  type NativeHost,
} from '../../../src/execution/simulation/native-binding.ts';
import type { DecodedEthTx } from '../../../src/execution/transactions.ts';
import type { StateCase } from './corpus.ts';
import { buildTx, type Engine, type EngineResult, logsHash, mainnetCommon, testBlockHash } from './engine.ts';

const EMPTY_CODE_HASH = keccak_256(new Uint8Array(0));

interface Acct {
  nonce: bigint;
  balance: bigint;
  code: Uint8Array;
  storage: Map<string, Uint8Array>;
}

const hexOf = (b: Uint8Array) => Buffer.from(b).toString('hex');
const h = (s: string) => hexToBytes((s.startsWith('0x') ? s : `0x${s}`) as `0x${string}`);

function preState(c: StateCase): Map<string, Acct> {
  const m = new Map<string, Acct>();
  for (const [addr, a] of Object.entries(c.pre)) {
    const storage = new Map<string, Uint8Array>();
    for (const [k, v] of Object.entries(a.storage)) {
      const value = unpadBytes(h(v));
      if (value.length > 0) storage.set(hexOf(setLengthLeft(h(k), 32)), value);
    }
    m.set(hexOf(setLengthLeft(h(addr), 20)), {
      nonce: BigInt(a.nonce),
      balance: BigInt(a.balance),
      code: h(a.code),
      storage,
    });
  }
  return m;
}

/** The Ethereum state root of `state` (accounts that are empty and storage-less left out). */
async function rootOf(state: Map<string, Acct>, fork: string): Promise<string> {
  const sm = new MerkleStateManager({ common: mainnetCommon(fork) });
  await sm.checkpoint();
  for (const [addr, a] of state) {
    const address = new Address(h(addr));
    await sm.putAccount(address, createAccount({ nonce: a.nonce, balance: a.balance }));
    if (a.code.length > 0) await sm.putCode(address, a.code);
    for (const [k, v] of a.storage) await sm.putStorage(address, h(k), v);
  }
  await sm.commit();
  return bytesToHex(await sm.getStateRoot());
}

function decodedOf(tx: TypedTransaction): DecodedEthTx {
  const t = tx as TypedTransaction & {
    maxFeePerGas?: bigint;
    maxPriorityFeePerGas?: bigint;
    gasPrice?: bigint;
  };
  const legacy = tx instanceof LegacyTx;
  const v = legacy ? (tx.v ?? 0n) : 0n;
  const chainId = legacy ? (v >= 35n ? (v - 35n) / 2n : undefined) : tx.common.chainId();
  return {
    tx,
    type: tx.type as DecodedEthTx['type'],
    sender: tx.getSenderAddress().bytes,
    nonce: tx.nonce,
    gasLimit: tx.gasLimit,
    maxFeePerGas: t.maxFeePerGas ?? t.gasPrice!,
    maxPriorityFeePerGas: t.maxPriorityFeePerGas ?? t.gasPrice!,
    value: tx.value,
    to: tx.to?.bytes ?? null,
    chainId,
  } as unknown as DecodedEthTx;
}

function host(state: Map<string, Acct>): NativeHost {
  return {
    account(a) {
      const x = state.get(hexOf(a));
      if (!x || (x.nonce === 0n && x.balance === 0n && x.code.length === 0)) {
        // an empty account with storage still exists for the EVM's collision check
        if (!x || x.storage.size === 0) return undefined;
      }
      return packAccount(x.balance, x.nonce, x.code.length > 0 ? keccak_256(x.code) : EMPTY_CODE_HASH);
    },
    code: (a) => state.get(hexOf(a))?.code ?? new Uint8Array(0),
    storage: (a, slot) => state.get(hexOf(a))?.storage.get(hexOf(slot)) ?? new Uint8Array(0),
    blockHash(height) {
      const n = Number(new DataView(height.buffer, height.byteOffset, 8).getBigUint64(0));
      return testBlockHash(n);
    },
  };
}

/** Applies `execute`'s decoded changes to `state`, as the block executor applies them to an overlay. */
function apply(accounts: AccountChange[], state: Map<string, Acct>): void {
  for (const a of accounts) {
    const id = hexOf(a.address);
    if (a.deleted) {
      state.delete(id);
      continue;
    }
    const prev = state.get(id);
    const acct = {
      nonce: a.nonce,
      balance: a.balance,
      code: a.code ?? prev?.code ?? new Uint8Array(0),
      storage: prev?.storage ?? new Map<string, Uint8Array>(),
    };
    state.set(id, acct);
    for (const [key, word] of a.slots) {
      const value = unpadBytes(word);
      if (value.length === 0) acct.storage.delete(hexOf(key));
      else acct.storage.set(hexOf(key), value);
    }
  }
}

const SPECS: Record<string, 'cancun' | 'prague'> = { Cancun: 'cancun', Prague: 'prague' };

export const revmEngine: Engine = {
  name: 'revm',
  async run(c) {
    const native = nativeSimulator();
    if (typeof native === 'string') throw new Error(`the native EVM is ${native}`);
    const spec = SPECS[c.fork];
    if (spec === undefined) throw new Error(`revm runs Cancun and Prague cases, not ${c.fork}`);
    const state = preState(c);
    const common = mainnetCommon(c.fork);
    let tx: TypedTransaction;
    try {
      tx = buildTx(c, common);
    } catch (e) {
      return {
        stateRoot: await rootOf(state, c.fork),
        logsHash: logsHash([]),
        gasUsed: 0n,
        rejected: `tx: ${String(e)}`,
      };
    }
    if (!tx.isValid()) {
      const rejected = tx.getValidationErrors().join('; ');
      return { stateRoot: await rootOf(state, c.fork), logsHash: logsHash([]), gasUsed: 0n, rejected };
    }
    const e = c.env;
    const block = packBlock({
      number: BigInt(e.currentNumber),
      timestamp: BigInt(e.currentTimestamp),
      coinbase: setLengthLeft(h(e.currentCoinbase), 20),
      baseFee: BigInt(e.currentBaseFee ?? '0x0a'),
      gasLimit: BigInt(e.currentGasLimit),
      prevRandao: e.currentRandom !== undefined ? setLengthLeft(h(e.currentRandom), 32) : new Uint8Array(32),
      chainId: 1n,
      spec,
    });
    const answer = native.execute(packTx(decodedOf(tx)), block, false, host(state));
    if (typeof answer === 'string')
      return {
        stateRoot: await rootOf(state, c.fork),
        logsHash: logsHash([]),
        gasUsed: 0n,
        rejected: answer,
      };
    const r = decodeExecution(answer, false);
    apply(r.accounts, state);
    const logs = r.logs.map((l) => [l.address, l.topics, l.data]);
    return {
      stateRoot: await rootOf(state, c.fork),
      logsHash: logsHash(logs),
      gasUsed: r.gasUsed,
    } satisfies EngineResult;
  },
};
