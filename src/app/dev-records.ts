/**
 * The records only a dev chain's blocks hold, each a Cosmos `TxRaw` with one message and no
 * signature, as every tx of a block is one (docs/adr/0012-every-tx-is-a-cosmos-txraw.md):
 *
 * - a state patch (`/chaind.dev.v1.MsgSetState`): state edits the block applies at its position
 *   (dev-state-patch.ts);
 * - an impersonated Ethereum transaction (`/chaind.dev.v1.MsgImpersonatedEVMTransaction`): its
 *   value is the 20-byte sender ‖ the transaction's bytes, whose signature is a placeholder; the
 *   block runs it as sent by that sender.
 *
 * The producer of a dev chain writes them; only a chain opened for dev records decodes them, so a
 * network node refuses a block that holds one, and no mempool admits one (neither type URL is a
 * Cosmos message any module handles).
 */
import { TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { concatBytes, equalBytes } from '../primitives/bytes.ts';
import { decodeDevStatePatch, type DevStateEdit, encodeDevStatePatch } from './dev-state-patch.ts';

export const DEV_STATE_PATCH_TYPE_URL = '/chaind.dev.v1.MsgSetState';
export const DEV_IMPERSONATED_TX_TYPE_URL = '/chaind.dev.v1.MsgImpersonatedEVMTransaction';

export type DevRecord =
  | { kind: 'statePatch'; edits: DevStateEdit[] }
  | { kind: 'impersonated'; sender: Uint8Array; raw: Uint8Array };

function wrap(typeUrl: string, value: Uint8Array): Uint8Array {
  const bodyBytes = TxBody.encode(TxBody.fromPartial({ messages: [{ typeUrl, value }] })).finish();
  return TxRaw.encode(TxRaw.fromPartial({ bodyBytes })).finish();
}

export function wrapDevRecord(record: DevRecord): Uint8Array {
  return record.kind === 'statePatch'
    ? wrap(DEV_STATE_PATCH_TYPE_URL, encodeDevStatePatch(record.edits))
    : wrap(DEV_IMPERSONATED_TX_TYPE_URL, concatBytes(record.sender, record.raw));
}

/**
 * The record in a block tx, or undefined when the bytes are not exactly one `wrapDevRecord` writes
 * (an ordinary tx). A record whose body does not decode throws a ChainError naming why.
 */
export function unwrapDevRecord(txRaw: Uint8Array): DevRecord | undefined {
  let typeUrl: string;
  let value: Uint8Array;
  try {
    const raw = TxRaw.decode(txRaw);
    if (raw.authInfoBytes.length > 0 || raw.signatures.length > 0) return undefined;
    const body = TxBody.decode(raw.bodyBytes);
    if (body.messages.length !== 1) return undefined;
    ({ typeUrl, value } = body.messages[0]);
  } catch {
    return undefined;
  }
  if (typeUrl !== DEV_STATE_PATCH_TYPE_URL && typeUrl !== DEV_IMPERSONATED_TX_TYPE_URL) return undefined;
  // one encoding per record: what re-wrapping does not reproduce is not a record
  if (!equalBytes(wrap(typeUrl, value), txRaw)) return undefined;
  if (typeUrl === DEV_STATE_PATCH_TYPE_URL) return { kind: 'statePatch', edits: decodeDevStatePatch(value) };
  if (value.length <= 20) return undefined;
  return { kind: 'impersonated', sender: value.slice(0, 20), raw: value.slice(20) };
}

/** Whether the bytes are a dev record at all, whether or not its body decodes. */
export function isDevRecord(txRaw: Uint8Array): boolean {
  try {
    return unwrapDevRecord(txRaw) !== undefined;
  } catch {
    return true;
  }
}
