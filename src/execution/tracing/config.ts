/** Decoding of a tracer's `tracerConfig`, with geth's json.Unmarshal tolerance (unknown keys ignored). */
import { ChainError } from '../../util/errors.ts';

export class TraceConfigError extends ChainError {
  constructor(message: string) {
    super('TRACE_INVALID_CONFIG', message);
  }
}

/** The boolean fields `keys` of `raw` (absent or null: false); a non-boolean is an error naming it. */
export function boolFields<K extends string>(
  tracer: string,
  raw: Record<string, unknown> | undefined,
  keys: readonly K[],
): Record<K, boolean> {
  // JSON null decodes to nothing, as in geth
  if (raw === null) raw = undefined;
  if (raw !== undefined && (typeof raw !== 'object' || Array.isArray(raw))) {
    throw new TraceConfigError(`invalid ${tracer} tracerConfig: expected an object`);
  }
  const out = {} as Record<K, boolean>;
  for (const k of keys) {
    const v = raw?.[k];
    if (v !== undefined && v !== null && typeof v !== 'boolean') {
      throw new TraceConfigError(
        `invalid ${tracer} tracerConfig: ${k} must be a boolean, got ${JSON.stringify(v)}`,
      );
    }
    out[k] = v === true;
  }
  return out;
}
