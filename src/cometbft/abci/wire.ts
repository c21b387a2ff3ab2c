/**
 * The ABCI socket protocol's framing (CometBFT v0.38): every message is a `tendermint.abci.Request`
 * or `Response` protobuf preceded by its length as an unsigned LEB128 varint. The messages are
 * cosmjs-types' `tendermint/abci` codecs, which carry the v0.38 ABCI++ messages (a test checks them
 * against the pinned CometBFT's .proto files).
 */
import { Request, Response } from 'cosmjs-types/tendermint/abci/types';
import { concatBytes } from '../../primitives/bytes.ts';

/** Largest message accepted from CometBFT: a block of `max_bytes` plus its request envelope. */
export const MAX_ABCI_MESSAGE_BYTES = 256 * 1024 * 1024;

export class AbciFramingError extends Error {
  readonly code = 'ABCI_FRAMING';
}

export function encodeResponse(res: Response): Uint8Array {
  return delimit(Response.encode(res).finish());
}

export function encodeRequest(req: Request): Uint8Array {
  return delimit(Request.encode(req).finish());
}

function delimit(body: Uint8Array): Uint8Array {
  let n = body.length;
  const prefix: number[] = [];
  while (n >= 0x80) {
    prefix.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  prefix.push(n);
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix, 0);
  out.set(body, prefix.length);
  return out;
}

/**
 * Splits a byte stream into message bodies. Chunks arrive as the socket delivers them; a message
 * split across chunks is kept until it is whole.
 */
export class FrameReader {
  private buf: Uint8Array = new Uint8Array(0);

  push(chunk: Uint8Array): Uint8Array[] {
    this.buf = this.buf.length === 0 ? chunk : concatBytes(this.buf, chunk);
    const out: Uint8Array[] = [];
    let pos = 0;
    for (;;) {
      let len = 0;
      let shift = 0;
      let p = pos;
      let complete = false;
      while (p < this.buf.length) {
        const b = this.buf[p++];
        if (shift >= 35) throw new AbciFramingError('ABCI message length prefix is longer than 5 bytes');
        len += (b & 0x7f) * 2 ** shift;
        shift += 7;
        if ((b & 0x80) === 0) {
          complete = true;
          break;
        }
      }
      if (!complete) break;
      if (len > MAX_ABCI_MESSAGE_BYTES)
        throw new AbciFramingError(`ABCI message of ${len} bytes exceeds ${MAX_ABCI_MESSAGE_BYTES}`);
      if (this.buf.length - p < len) break;
      out.push(this.buf.subarray(p, p + len));
      pos = p + len;
    }
    this.buf = pos === this.buf.length ? new Uint8Array(0) : this.buf.slice(pos);
    return out;
  }
}

export { Request, Response };
