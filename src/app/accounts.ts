/**
 * An EVM account as every reader outside block execution sees it (the RPC, the mempool's admission,
 * the producer): its nonce, code and storage from the evm module, and its balance in wei from the
 * bank module through its association. The one place that joins the two modules for reading.
 */
import type { StateReader } from '../state/overlay.ts';
import { BankReader } from './bank.ts';
import { EvmReader, leftPad32 } from './evm.ts';

export class AccountReader {
  private readonly evm: EvmReader;
  private readonly bank: BankReader;
  constructor(state: StateReader) {
    this.evm = new EvmReader(state);
    this.bank = new BankReader(state);
  }

  nonce(address: Uint8Array): bigint {
    return this.evm.nonce(address);
  }

  /** Wei held by the account's associated Cosmos address (or its cast): uchain × 10^12 + remainder. */
  balance(address: Uint8Array): bigint {
    return this.bank.wei(this.evm.balanceAddressOf(address));
  }

  code(address: Uint8Array): Uint8Array {
    return this.evm.code(address);
  }

  codeHash(address: Uint8Array): Uint8Array {
    return this.evm.codeHash(address);
  }

  /** A slot of any length up to 32 bytes, read as the EVM addresses it (left-padded). */
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    return this.evm.storage(address, leftPad32(slot));
  }
}
