/**
 * Gas for Cosmos transactions, with the Cosmos SDK's default KV gas schedule: every store read and
 * write inside the transaction is charged, so the gas a tx uses is deterministic and comparable to
 * other Cosmos chains.
 */
import type { StateReader } from '../state/overlay.ts';
import { CosmosTxError, SdkCode } from './cosmos-errors.ts';
import type { StateWriter } from './state-access.ts';

export const KV_GAS = {
  readFlat: 1000n,
  readPerByte: 3n,
  writeFlat: 2000n,
  writePerByte: 30n,
  deleteFlat: 1000n,
  txSizePerByte: 10n,
  sigVerifySecp256k1: 1000n,
} as const;

export class GasMeter {
  readonly limit: bigint;
  private used = 0n;
  constructor(limit: bigint) {
    this.limit = limit;
  }

  get consumed(): bigint {
    return this.used;
  }

  consume(amount: bigint, what: string): void {
    this.used += amount;
    if (this.used > this.limit) {
      throw new CosmosTxError(
        SdkCode.OutOfGas,
        `out of gas in location: ${what}; gasWanted: ${this.limit}, gasUsed: ${this.used}: out of gas`,
      );
    }
  }
}

/** A StateWriter that charges every access to a GasMeter. */
export class MeteredState implements StateWriter {
  private readonly inner: StateWriter;
  private readonly meter: GasMeter;
  constructor(inner: StateWriter, meter: GasMeter) {
    this.inner = inner;
    this.meter = meter;
  }

  get(store: string, key: Uint8Array): Uint8Array | undefined {
    const v = this.inner.get(store, key);
    this.meter.consume(
      KV_GAS.readFlat + KV_GAS.readPerByte * BigInt(key.length + (v?.length ?? 0)),
      'ReadFlat',
    );
    return v;
  }

  set(store: string, key: Uint8Array, value: Uint8Array | undefined): void {
    if (value === undefined) this.meter.consume(KV_GAS.deleteFlat, 'Delete');
    else
      this.meter.consume(
        KV_GAS.writeFlat + KV_GAS.writePerByte * BigInt(key.length + value.length),
        'WriteFlat',
      );
    this.inner.set(store, key, value);
  }
}

export type { StateReader };
