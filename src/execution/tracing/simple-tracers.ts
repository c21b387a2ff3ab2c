/** geth's 4byteTracer and noopTracer. */
import { bareHex } from './hex.ts';
import { TxTracer } from './tracer.ts';
import type { Enter } from './types.ts';

/** Prague's precompiles: 0x01 … 0x11. */
export function isPrecompile(a: Uint8Array | undefined): boolean {
  if (!a || a.length !== 20) return false;
  for (let i = 0; i < 19; i++) if (a[i] !== 0) return false;
  return a[19] >= 0x01 && a[19] <= 0x11;
}

/**
 * Counts the 4-byte selectors of calls (CALL, CALLCODE, DELEGATECALL, STATICCALL, the transaction's
 * own call included) with at least 4 bytes of input, to non-precompiles: `{"0xa9059cbb-64": 1}` where
 * 64 is the input size after the selector.
 */
export class FourByteTracer extends TxTracer {
  readonly name = '4byteTracer';
  private readonly ids = new Map<string, number>();

  override onEnter(e: Enter): void {
    if (e.input.length < 4) return;
    if (e.type !== 'CALL' && e.type !== 'CALLCODE' && e.type !== 'DELEGATECALL' && e.type !== 'STATICCALL')
      return;
    if (isPrecompile(e.to)) return;
    const key = `0x${bareHex(e.input.subarray(0, 4))}-${e.input.length - 4}`;
    const seen = this.ids.get(key);
    if (seen === undefined) this.charge(key.length + 12);
    this.ids.set(key, (seen ?? 0) + 1);
  }

  result(): Record<string, number> {
    return Object.fromEntries([...this.ids].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}

export class NoopTracer extends TxTracer {
  readonly name = 'noopTracer';
  result(): Record<string, never> {
    return {};
  }
}
