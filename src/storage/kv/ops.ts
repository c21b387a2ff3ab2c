import { ChainError } from '../../util/errors.ts';
import type { KVOp } from './types.ts';

/** A write batch held an operation no engine can apply; nothing of the batch was written. */
export class KVInvalidOpError extends ChainError {
  constructor(index: number, reason: string) {
    super('KV_INVALID_OP', `write batch operation #${index} is invalid: ${reason}`);
  }
}

/**
 * Checks a whole batch before any engine touches it, so a bad operation can never leave half a
 * batch applied (the memory engine, for one, has no transaction to roll back).
 */
export function assertValidOps(ops: readonly KVOp[]): void {
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i] as { type?: unknown; key?: unknown; value?: unknown };
    if (!(op?.key instanceof Uint8Array)) throw new KVInvalidOpError(i, 'key must be a Uint8Array');
    if (op.key.length === 0) throw new KVInvalidOpError(i, 'key must not be empty');
    if (op.type === 'put') {
      if (!(op.value instanceof Uint8Array)) throw new KVInvalidOpError(i, 'value must be a Uint8Array');
    } else if (op.type !== 'del') {
      throw new KVInvalidOpError(i, `unknown type ${JSON.stringify(op.type)} (expected "put" or "del")`);
    }
  }
}

/** A Uint8Array view of an engine's Buffer (no copy), so callers and tests see one byte type. */
export function asBytes(buf: Uint8Array): Uint8Array {
  return Object.getPrototypeOf(buf) === Uint8Array.prototype
    ? buf
    : new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}
