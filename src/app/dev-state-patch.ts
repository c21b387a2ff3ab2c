/**
 * A dev chain's state edits (hardhat_setBalance, anvil_setCode, hardhat_setStorageAt, …) as one
 * record a block carries and executes: the edit is part of the chain, so every store takes it with
 * the block, history before it stays as it was, and a restart replays it like any tx. Only a dev
 * chain decodes the record (a network node refuses a block holding one).
 *
 * The body is JSON with every number and byte string in hex, written in a fixed field order, so the
 * bytes of a record are a function of its edits.
 */
import { fromHex, fromUtf8, toHex, utf8 } from '../primitives/bytes.ts';
import { WEI_PER_UCHAIN } from '../primitives/identity.ts';
import { ChainError } from '../util/errors.ts';
import { Bank } from './bank.ts';
import { Evm, leftPad32 } from './evm.ts';
import { decimal, type StateWriter } from './state-access.ts';
import { evmKeys, STORES } from './store-keys.ts';

export type DevStateEdit =
  | { op: 'setBalance'; address: Uint8Array; wei: bigint }
  | { op: 'addBalance'; address: Uint8Array; wei: bigint }
  | { op: 'setNonce'; address: Uint8Array; nonce: bigint }
  | { op: 'setCode'; address: Uint8Array; code: Uint8Array }
  | { op: 'setStorage'; address: Uint8Array; slot: Uint8Array; value: Uint8Array }
  /** The base fee the next block charges (hardhat_setNextBlockBaseFeePerGas). */
  | { op: 'setNextBaseFee'; wei: bigint }
  /** COINBASE of the blocks from the next one on (hardhat_setCoinbase). */
  | { op: 'setCoinbase'; address: Uint8Array }
  /** PREVRANDAO of the next block (hardhat_setPrevRandao). */
  | { op: 'setPrevRandao'; value: Uint8Array }
  /** The gas limit of the blocks from the next one on (evm_setBlockGasLimit). */
  | { op: 'setGasLimit'; gas: bigint };

/** What an applied patch leaves for the block to do at its end. */
export interface AppliedPatch {
  /** Replaces the base fee the block would hand on to the next one. */
  nextBaseFee?: bigint;
}

const MAX_U64 = 2n ** 64n - 1n;
/** CometBFT's max_gas is an int64. */
const MAX_I64 = 2n ** 63n - 1n;
const MAX_U256 = 2n ** 256n - 1n;

const hexOf = (b: Uint8Array) => '0x' + toHex(b);
const qty = (n: bigint) => '0x' + n.toString(16);

export function encodeDevStatePatch(edits: readonly DevStateEdit[]): Uint8Array {
  const out = edits.map((e) => {
    switch (e.op) {
      case 'setBalance':
      case 'addBalance':
        return { op: e.op, address: hexOf(e.address), wei: qty(e.wei) };
      case 'setNonce':
        return { op: e.op, address: hexOf(e.address), nonce: qty(e.nonce) };
      case 'setCode':
        return { op: e.op, address: hexOf(e.address), code: hexOf(e.code) };
      case 'setStorage':
        return { op: e.op, address: hexOf(e.address), slot: hexOf(e.slot), value: hexOf(e.value) };
      case 'setNextBaseFee':
        return { op: e.op, wei: qty(e.wei) };
      case 'setCoinbase':
        return { op: e.op, address: hexOf(e.address) };
      case 'setPrevRandao':
        return { op: e.op, value: hexOf(e.value) };
      case 'setGasLimit':
        return { op: e.op, gas: qty(e.gas) };
    }
  });
  return utf8(JSON.stringify(out));
}

/** The edits of a record body; a ChainError naming what is wrong for anything else. */
export function decodeDevStatePatch(body: Uint8Array): DevStateEdit[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromUtf8(body));
  } catch {
    throw bad('the body is not JSON');
  }
  if (!Array.isArray(parsed)) throw bad('the body is not a list of edits');
  return parsed.map((v: unknown, i): DevStateEdit => {
    if (typeof v !== 'object' || v === null) throw bad(`edit ${i} is not an object`);
    const e = v as Record<string, unknown>;
    const bytes = (name: string, len?: number) => {
      const s = e[name];
      if (typeof s !== 'string' || !/^0x([0-9a-f]{2})*$/.test(s))
        throw bad(`edit ${i}: ${name} is not hex bytes`);
      const b = fromHex(s.slice(2));
      if (len !== undefined && b.length !== len) throw bad(`edit ${i}: ${name} is not ${len} bytes`);
      return b;
    };
    const num = (name: string, max: bigint) => {
      const s = e[name];
      if (typeof s !== 'string' || !/^0x(0|[1-9a-f][0-9a-f]*)$/.test(s))
        throw bad(`edit ${i}: ${name} is not a quantity`);
      const n = BigInt(s);
      if (n > max) throw bad(`edit ${i}: ${name} is too large`);
      return n;
    };
    switch (e.op) {
      case 'setBalance':
      case 'addBalance':
        return { op: e.op, address: bytes('address', 20), wei: num('wei', MAX_U256) };
      case 'setNonce':
        return { op: 'setNonce', address: bytes('address', 20), nonce: num('nonce', MAX_U64) };
      case 'setCode':
        return { op: 'setCode', address: bytes('address', 20), code: bytes('code') };
      case 'setStorage':
        return {
          op: 'setStorage',
          address: bytes('address', 20),
          slot: bytes('slot', 32),
          value: bytes('value', 32),
        };
      case 'setNextBaseFee':
        return { op: 'setNextBaseFee', wei: num('wei', MAX_U256) };
      case 'setCoinbase':
        return { op: 'setCoinbase', address: bytes('address', 20) };
      case 'setPrevRandao':
        return { op: 'setPrevRandao', value: bytes('value', 32) };
      case 'setGasLimit':
        return { op: 'setGasLimit', gas: num('gas', MAX_I64) };
      default:
        throw bad(`edit ${i}: unknown op ${JSON.stringify(e.op)}`);
    }
  });
}

/**
 * Applies the edits in order. A balance moves the bank supply with it (in whole uchain), so the
 * supply stays the sum of the balances a Cosmos client adds up.
 */
export function applyDevStatePatch(state: StateWriter, edits: readonly DevStateEdit[]): AppliedPatch {
  const evm = new Evm(state);
  const bank = new Bank(state);
  const applied: AppliedPatch = {};
  const setWei = (address: Uint8Array, wei: bigint) => {
    const holder = evm.balanceAddressOf(address);
    const before = bank.uchain(holder);
    bank.setWei(holder, wei);
    bank.setSupply(bank.supply() - before + wei / WEI_PER_UCHAIN);
  };
  for (const e of edits) {
    switch (e.op) {
      case 'setBalance':
        setWei(e.address, e.wei);
        break;
      case 'addBalance': {
        const total = bank.wei(evm.balanceAddressOf(e.address)) + e.wei;
        if (total > MAX_U256) throw bad('the balance would exceed 2^256 - 1');
        setWei(e.address, total);
        break;
      }
      case 'setNonce':
        evm.setNonce(e.address, e.nonce);
        break;
      case 'setCode':
        evm.setCode(e.address, e.code);
        break;
      case 'setStorage':
        evm.setStorage(e.address, e.slot, leftPad32(e.value));
        break;
      case 'setNextBaseFee':
        applied.nextBaseFee = e.wei;
        break;
      case 'setCoinbase':
        state.set(STORES.evm, evmKeys.devCoinbase, e.address.slice());
        break;
      case 'setPrevRandao':
        state.set(STORES.evm, evmKeys.devPrevRandao, e.value.slice());
        break;
      case 'setGasLimit':
        if (e.gas < 1n) throw bad('a block gas limit must be at least 1');
        state.set(STORES.evm, evmKeys.devGasLimit, decimal(e.gas));
        break;
    }
  }
  return applied;
}

function bad(what: string): ChainError {
  return new ChainError('BAD_DEV_RECORD', `a dev state patch does not decode: ${what}`);
}
