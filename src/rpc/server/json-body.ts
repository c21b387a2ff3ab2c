/**
 * Parsing a JSON-RPC body, with its nesting bounded first. JSON.parse itself copes with any depth,
 * but what runs on the parsed value (parameter codecs, error messages quoting a bad value) recurses,
 * and a body of 20,000 nested arrays overflows the stack there. Counting brackets on the raw bytes is
 * linear and allocates nothing, so an over-deep body is refused before any value is built.
 */
import type { JsonRpcResponse } from './dispatcher.ts';

/** Far more than any method's parameters need (eth_simulateV1's deepest field is about 11 levels). */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/** Whether `buf` (JSON text) nests arrays and objects more than `max` levels deep. */
export function jsonDepthExceeds(buf: Uint8Array, max: number): boolean {
  // each level takes at least one byte
  if (buf.length <= max) return false;
  let depth = 0;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (c === 0x22) {
      // skip the string: brackets inside it do not nest
      for (i++; i < buf.length; i++) {
        const s = buf[i];
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

export type ParsedBody =
  { payload: unknown; error?: undefined } | { payload?: undefined; error: JsonRpcResponse };

/**
 * A number token of 16 or more digits: JSON.parse may round it (2^53 - 1 has 16). A match inside a
 * string only costs the slower parse with a reviver, never a different value.
 */
const LONG_NUMBER = /[[,:]\s*\d{16}/;

/**
 * `text` parsed with every whole-number parameter above 2^53 - 1 kept as its decimal digits (a
 * string), as anvil reads it: `cast rpc anvil_setBalance <addr> 1000000000000000000` sends the
 * amount as a bare JSON number, and a rounded one would set another balance than asked. Only a
 * request's own `params` elements change; ids and nested values read as JSON.parse reads them.
 */
function parseKeepingLongParams(text: string): unknown {
  const long = new Map<unknown[], Map<number, string>>();
  // the reviver's third argument (the token's source text) is newer than TypeScript's lib types
  const reviver = function (this: unknown, key: string, value: unknown, context?: { source?: string }) {
    const source = context?.source;
    if (
      typeof value === 'number' &&
      !Number.isSafeInteger(value) &&
      Array.isArray(this) &&
      source !== undefined &&
      /^[0-9]+$/.test(source)
    ) {
      let at = long.get(this);
      if (!at) long.set(this, (at = new Map()));
      at.set(Number(key), source);
    }
    return value;
  } as (this: unknown, key: string, value: unknown) => unknown;
  const payload = JSON.parse(text, reviver) as unknown;
  if (long.size === 0) return payload;
  for (const request of Array.isArray(payload) ? payload : [payload]) {
    const params = (request as { params?: unknown } | null)?.params;
    if (!Array.isArray(params)) continue;
    for (const [i, digits] of long.get(params) ?? []) params[i] = digits;
  }
  return payload;
}

/** The parsed body, or the error answer of a body that is not JSON or nests too deep. */
export function parseJsonRpcBody(buf: Buffer, maxDepth: number): ParsedBody {
  if (jsonDepthExceeds(buf, maxDepth)) {
    return {
      error: {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: `invalid request: JSON nested more than ${maxDepth} levels deep (max_json_depth)`,
        },
      },
    };
  }
  try {
    const text = buf.toString('utf8');
    return { payload: LONG_NUMBER.test(text) ? parseKeepingLongParams(text) : JSON.parse(text) };
  } catch {
    return { error: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } } };
  }
}
