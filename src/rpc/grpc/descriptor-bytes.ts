/**
 * Protobuf messages as their raw fields, to cut fields out of an encoded FileDescriptorProto without
 * decoding and re-encoding the rest: the generated codecs of descriptor.proto treat it as proto3 and
 * drop fields set to their first enum value (a `double` field's type, TYPE_DOUBLE = 1), and they
 * drop the custom options, so a round trip through them would change what reflection serves.
 */
import { putUvarint, readUvarint, uvarintLength } from '../../codec/varint.ts';

export interface RawField {
  number: number;
  /** The whole field: key, length when there is one, value. */
  raw: Uint8Array;
  /** The value of a length-delimited field (wire type 2). */
  payload?: Uint8Array;
}

/** The fields of an encoded message, in order. Throws on a malformed or group-encoded message. */
export function rawFields(message: Uint8Array): RawField[] {
  const out: RawField[] = [];
  let off = 0;
  while (off < message.length) {
    const start = off;
    const [key, afterKey] = readUvarint(message, off);
    const wireType = key & 7;
    off = afterKey;
    let payload: Uint8Array | undefined;
    if (wireType === 0) off = readUvarint(message, off)[1];
    else if (wireType === 1) off += 8;
    else if (wireType === 5) off += 4;
    else if (wireType === 2) {
      const [len, at] = readUvarint(message, off);
      payload = message.subarray(at, at + len);
      off = at + len;
    } else throw new Error(`unsupported protobuf wire type ${wireType} at byte ${start}`);
    if (off > message.length) throw new Error(`truncated protobuf field at byte ${start}`);
    out.push({ number: Math.floor(key / 8), raw: message.subarray(start, off), payload });
  }
  return out;
}

/** A length-delimited field: key, length, payload. */
export function lengthDelimitedField(number: number, payload: Uint8Array): Uint8Array {
  const key = number * 8 + 2;
  const out = new Uint8Array(uvarintLength(key) + uvarintLength(payload.length) + payload.length);
  const off = putUvarint(out, putUvarint(out, 0, key), payload.length);
  out.set(payload, off);
  return out;
}
