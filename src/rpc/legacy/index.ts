/**
 * The deprecated chain_/chain2_ JSON-RPC surface (docs/operators/legacy-methods.md), served over HTTP
 * only and behind `[evm] enabled_legacy_chain_apis` (gate.ts). PART A (methods.ts): addresses,
 * association, Cosmos/EVM tx lookups. The synthetic block/tx/receipt/log/filter views live in
 * synthetic/.
 */
import type { MethodDef, MethodTable } from '../server/dispatcher.ts';
import type { LegacyBackend } from './backend.ts';
import { addressAndTxMethods } from './methods.ts';

export type {
  AssociationLookup,
  AssociationSubmission,
  CosmosTxRecord,
  LegacyBackend,
  TxFailure,
} from './backend.ts';
export {
  DEPRECATION_HEADER,
  DEPRECATION_TEXT,
  LEGACY_ERROR_DATA,
  LEGACY_HTTP_HEADERS,
  blockedMessage,
  isLegacyName,
  unknownLegacyMessage,
  legacyGate,
  webSocketLegacyGate,
} from './gate.ts';
export { LegacyNotFoundError } from './methods.ts';

/**
 * Every legacy method this node implements; the gate decides which of them a request may reach.
 * `synthetic`: the synthetic views' table, built by the caller (it has its own backend).
 */
export function legacyMethods(
  backend: LegacyBackend,
  extra: { chain_getTransactionCount?: MethodDef; synthetic?: MethodTable } = {},
): MethodTable {
  return {
    ...extra.synthetic,
    ...addressAndTxMethods(backend, { chain_getTransactionCount: extra.chain_getTransactionCount }),
  };
}
