/**
 * Every transaction in a block is a Cosmos `TxRaw` (docs/adr/0012-every-tx-is-a-cosmos-txraw.md). A raw Ethereum transaction is carried
 * in one deterministically:
 *
 *   TxRaw { body_bytes = TxBody { messages = [ Any { type_url = "/chain.evm.v1.MsgEVMTransaction",
 *                                                     value = MsgEVMTransaction } ] },
 *           auth_info_bytes = empty, signatures = [] }
 *
 *   message MsgEVMTransaction { bytes data = 1; }   // the raw Ethereum tx (EIP-2718 envelope or legacy RLP)
 *
 * All other TxBody fields stay at their defaults, and proto3 canonical encoding omits defaults, so the
 * wrapper is a pure function of the raw bytes. It carries no Cosmos signature: the Ethereum signature
 * inside authenticates it. `unwrapEthTransaction` accepts only the exact bytes `wrapEthTransaction`
 * produces, which makes the mapping a bijection: one Ethereum tx has exactly one Cosmos tx hash
 * (SHA-256 of the wrapper) and no second encoding can smuggle the same Ethereum tx in twice.
 */
import { putUvarint, readUvarint, uvarintLength } from '../codec/varint.ts';
import { equalBytes } from '../primitives/bytes.ts';

export const MSG_EVM_TRANSACTION_TYPE_URL = '/chain.evm.v1.MsgEVMTransaction';

/** Protobuf key of field 1, wire type 2 (length-delimited). */
const DATA_FIELD_KEY = 0x0a;

/** Encodes `MsgEVMTransaction { bytes data = 1; }`. */
export function encodeMsgEVMTransaction(data: Uint8Array): Uint8Array {
  if (data.length === 0) return new Uint8Array(0); // proto3 omits an empty bytes field
  const out = new Uint8Array(1 + 10 + data.length);
  out[0] = DATA_FIELD_KEY;
  const off = putUvarint(out, 1, data.length);
  out.set(data, off);
  return out.subarray(0, off + data.length);
}

/** Decodes a canonical `MsgEVMTransaction`; undefined if the bytes are anything else. */
export function decodeMsgEVMTransaction(bytes: Uint8Array): Uint8Array | undefined {
  if (bytes.length === 0) return new Uint8Array(0);
  if (bytes[0] !== DATA_FIELD_KEY) return undefined;
  try {
    const [len, off] = readUvarint(bytes, 1);
    if (off + len !== bytes.length) return undefined;
    return bytes.subarray(off);
  } catch {
    return undefined;
  }
}

/** `TxRaw.body_bytes` and `TxBody.messages` are field 1, `Any.type_url` field 1, `Any.value` field 2. */
const FIELD_1_BYTES = 0x0a;
const FIELD_2_BYTES = 0x12;
const TYPE_URL_FIELD = Uint8Array.from([
  FIELD_1_BYTES,
  MSG_EVM_TRANSACTION_TYPE_URL.length,
  ...Buffer.from(MSG_EVM_TRANSACTION_TYPE_URL, 'latin1'),
]);

/**
 * The Cosmos `TxRaw` bytes that carry a raw Ethereum transaction in a block. Written by hand, in one
 * allocation, because the producer wraps every tx of every block (the generic protobuf writer cost
 * more than the block store write); the bytes are exactly what the cosmjs-types encoders produce.
 */
export function wrapEthTransaction(raw: Uint8Array): Uint8Array {
  const msgLen = raw.length === 0 ? 0 : 1 + uvarintLength(raw.length) + raw.length;
  // proto3 omits an empty bytes field: no Any.value when the message is empty
  const anyLen = TYPE_URL_FIELD.length + (msgLen === 0 ? 0 : 1 + uvarintLength(msgLen) + msgLen);
  const bodyLen = 1 + uvarintLength(anyLen) + anyLen;
  const out = new Uint8Array(1 + uvarintLength(bodyLen) + bodyLen);
  out[0] = FIELD_1_BYTES;
  let off = putUvarint(out, 1, bodyLen);
  out[off++] = FIELD_1_BYTES;
  off = putUvarint(out, off, anyLen);
  out.set(TYPE_URL_FIELD, off);
  off += TYPE_URL_FIELD.length;
  if (msgLen > 0) {
    out[off++] = FIELD_2_BYTES;
    off = putUvarint(out, off, msgLen);
    out[off++] = DATA_FIELD_KEY;
    off = putUvarint(out, off, raw.length);
    out.set(raw, off);
  }
  return out;
}

/** Reads `key ‖ uvarint length` at off and checks the field runs exactly to `end`; the field's start. */
function exactField(buf: Uint8Array, off: number, key: number, end: number): number | undefined {
  if (buf[off] !== key) return undefined;
  const [len, start] = readUvarint(buf, off + 1);
  return start + len === end ? start : undefined;
}

/**
 * The raw Ethereum transaction inside a `TxRaw`, or undefined when the bytes are not exactly a wrapper
 * made by `wrapEthTransaction` (a Cosmos tx, or garbage for the Cosmos decoder to reject).
 */
export function unwrapEthTransaction(txRaw: Uint8Array): Uint8Array | undefined {
  let data: Uint8Array | undefined;
  try {
    // The only shape wrapEthTransaction writes: TxRaw{body} ‖ TxBody{one Any} ‖ Any{type_url, value}.
    const end = txRaw.length;
    const body = exactField(txRaw, 0, FIELD_1_BYTES, end);
    if (body === undefined) return undefined;
    const any = exactField(txRaw, body, FIELD_1_BYTES, end);
    if (any === undefined) return undefined;
    for (let i = 0; i < TYPE_URL_FIELD.length; i++)
      if (txRaw[any + i] !== TYPE_URL_FIELD[i]) return undefined;
    const value = exactField(txRaw, any + TYPE_URL_FIELD.length, FIELD_2_BYTES, end);
    if (value === undefined) return undefined;
    data = decodeMsgEVMTransaction(txRaw.subarray(value));
  } catch {
    return undefined;
  }
  if (data === undefined || data.length === 0) return undefined;
  // Re-encoding is cheap and rules out every non-canonical variant (e.g. over-long length varints).
  return equalBytes(wrapEthTransaction(data), txRaw) ? data.slice() : undefined;
}
