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
    return { payload: JSON.parse(buf.toString('utf8')) };
  } catch {
    return { error: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } } };
  }
}
