/**
 * The evm module's state: nonces, code, code hashes, contract storage, and the association between
 * an account's EVM and Cosmos addresses (both directions). An address without an association is read
 * through its cast: the same 20 bytes in the other format.
 */
import { createHash } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { StateReader } from '../state/overlay.ts';
import { readU64be, type StateWriter, u64be } from './state-access.ts';
import { evmKeys, STORES } from './store-keys.ts';

/** keccak-256 of empty code: the code hash of every account without code. */
export const EMPTY_CODE_HASH = keccak_256(new Uint8Array(0));

/** Module account of collected fees: the first 20 bytes of SHA-256("fee_collector"), as in the Cosmos SDK. */
export const FEE_COLLECTOR_ADDRESS = new Uint8Array(
  createHash('sha256').update('fee_collector').digest().subarray(0, 20),
);

const ZERO32 = new Uint8Array(32);

export class EvmReader {
  protected readonly state: StateReader;
  constructor(state: StateReader) {
    this.state = state;
  }

  nonce(addr: Uint8Array): bigint {
    return readU64be(this.state.get(STORES.evm, evmKeys.nonce(addr)));
  }

  code(addr: Uint8Array): Uint8Array {
    return this.state.get(STORES.evm, evmKeys.code(addr)) ?? new Uint8Array(0);
  }

  codeHash(addr: Uint8Array): Uint8Array {
    return this.state.get(STORES.evm, evmKeys.codeHash(addr)) ?? EMPTY_CODE_HASH;
  }

  hasCode(addr: Uint8Array): boolean {
    return this.state.get(STORES.evm, evmKeys.codeHash(addr)) !== undefined;
  }

  /** A storage slot's 32-byte value (zero when unset). */
  storage(addr: Uint8Array, slot: Uint8Array): Uint8Array {
    return this.state.get(STORES.evm, evmKeys.storage(addr, slot)) ?? ZERO32;
  }

  cosmosAddressOf(evm: Uint8Array): Uint8Array | undefined {
    return this.state.get(STORES.evm, evmKeys.associationByEvm(evm));
  }

  evmAddressOf(cosmos: Uint8Array): Uint8Array | undefined {
    return this.state.get(STORES.evm, evmKeys.associationByCosmos(cosmos));
  }

  /** The Cosmos address whose bank balance backs this EVM address: its association, else its cast. */
  balanceAddressOf(evm: Uint8Array): Uint8Array {
    return this.cosmosAddressOf(evm) ?? evm;
  }
}

export class Evm extends EvmReader {
  private readonly writer: StateWriter;
  constructor(state: StateWriter) {
    super(state);
    this.writer = state;
  }

  setNonce(addr: Uint8Array, nonce: bigint): void {
    this.writer.set(STORES.evm, evmKeys.nonce(addr), nonce === 0n ? undefined : u64be(nonce));
  }

  /** Stores code and its hash; empty code removes both. */
  setCode(addr: Uint8Array, code: Uint8Array, codeHash = keccak_256(code)): void {
    const empty = code.length === 0;
    this.writer.set(STORES.evm, evmKeys.code(addr), empty ? undefined : code.slice());
    this.writer.set(STORES.evm, evmKeys.codeHash(addr), empty ? undefined : codeHash);
  }

  /** Writes a slot; zero values are deleted (an unset slot reads as zero). */
  setStorage(addr: Uint8Array, slot: Uint8Array, value: Uint8Array): void {
    const isZero = value.every((b) => b === 0);
    this.writer.set(STORES.evm, evmKeys.storage(addr, slot), isZero ? undefined : leftPad32(value));
  }

  associate(evm: Uint8Array, cosmos: Uint8Array): void {
    this.writer.set(STORES.evm, evmKeys.associationByEvm(evm), cosmos.slice());
    this.writer.set(STORES.evm, evmKeys.associationByCosmos(cosmos), evm.slice());
  }
}

export function leftPad32(v: Uint8Array): Uint8Array {
  if (v.length === 32) return v.slice();
  if (v.length > 32) throw new Error(`storage value longer than 32 bytes (${v.length})`);
  const out = new Uint8Array(32);
  out.set(v, 32 - v.length);
  return out;
}
