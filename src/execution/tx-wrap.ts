/**
 * Every transaction in a block is a Cosmos `TxRaw` (DESIGN §4). A raw Ethereum transaction is carried
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
import { Any } from 'cosmjs-types/google/protobuf/any';
import { TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { putUvarint, readUvarint } from '../codec/varint.ts';
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

/** The Cosmos `TxRaw` bytes that carry a raw Ethereum transaction in a block. */
export function wrapEthTransaction(raw: Uint8Array): Uint8Array {
  const bodyBytes = TxBody.encode(
    TxBody.fromPartial({
      messages: [
        Any.fromPartial({ typeUrl: MSG_EVM_TRANSACTION_TYPE_URL, value: encodeMsgEVMTransaction(raw) }),
      ],
    }),
  ).finish();
  return TxRaw.encode(TxRaw.fromPartial({ bodyBytes })).finish();
}

/**
 * The raw Ethereum transaction inside a `TxRaw`, or undefined when the bytes are not exactly a wrapper
 * made by `wrapEthTransaction` (a Cosmos tx, or garbage for the Cosmos decoder to reject).
 */
export function unwrapEthTransaction(txRaw: Uint8Array): Uint8Array | undefined {
  let data: Uint8Array | undefined;
  try {
    const { bodyBytes, authInfoBytes, signatures } = TxRaw.decode(txRaw);
    if (authInfoBytes.length !== 0 || signatures.length !== 0) return undefined;
    const body = TxBody.decode(bodyBytes);
    if (body.messages.length !== 1 || body.messages[0].typeUrl !== MSG_EVM_TRANSACTION_TYPE_URL)
      return undefined;
    data = decodeMsgEVMTransaction(body.messages[0].value);
  } catch {
    return undefined;
  }
  if (data === undefined || data.length === 0) return undefined;
  // Re-encoding is cheap and rules out every non-canonical variant (extra fields, memo, reordering).
  return equalBytes(wrapEthTransaction(data), txRaw) ? data.slice() : undefined;
}
