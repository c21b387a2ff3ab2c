/**
 * The legacy chain_/chain2_ surface over this node's modules (rpc/legacy's LegacyBackend): association
 * records read from the latest committed state, txs and receipts from the block store, association
 * txs admitted by the Cosmos pool. `legacyHttpDispatcher` is the HTTP transport's dispatcher: the
 * shared one plus the legacy methods behind the `[evm] enabled_legacy_chain_apis` gate; the WebSocket
 * transport gets `webSocketDispatcher`, which refuses every legacy name (the surface is HTTP-only).
 */
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { encodeAssociationTx } from '../app/association-tx.ts';
import { cosmosTxHash } from '../app/cosmos-tx.ts';
import { EvmReader } from '../app/evm.ts';
import { unwrapEthTransaction } from '../execution/tx-wrap.ts';
import type { CosmosPool } from '../mempool/cosmos-pool.ts';
import { type EvmBackend, evmMethods } from '../rpc/evm/index.ts';
import {
  type CosmosTxRecord,
  type LegacyBackend,
  legacyGate,
  legacyMethods,
  webSocketLegacyGate,
} from '../rpc/legacy/index.ts';
import { txJson } from '../rpc/rest/json.ts';
import type { Dispatcher, MethodTable } from '../rpc/server/dispatcher.ts';
import type { EvmRpcDeps } from './rpc-adapters.ts';

export interface LegacyRpcDeps extends EvmRpcDeps {
  /** Admits chain_associate's txs; without it chain_associate is not served. */
  cosmosPool?: CosmosPool;
}

export function legacyBackend(d: LegacyRpcDeps): LegacyBackend {
  const latest = () => new EvmReader(d.chain.state);
  const record = (raw: Uint8Array, height: number, index: number): CosmosTxRecord => {
    const eth = unwrapEthTransaction(raw);
    return {
      hash: cosmosTxHash(raw),
      height,
      index,
      tx: txJson(TxRaw.decode(raw)),
      evmTxHash: eth ? keccak_256(eth) : undefined,
    };
  };
  const at = (loc: { height: number; index: number } | undefined) => {
    const raw = loc && d.blocks.txAt(loc.height, loc.index);
    return raw ? record(raw, loc.height, loc.index) : undefined;
  };
  const pool = d.cosmosPool;
  return {
    associations: {
      cosmosAddressOf: (evm) => latest().cosmosAddressOf(evm),
      evmAddressOf: (cosmos) => latest().evmAddressOf(cosmos),
    },
    submitAssociation: pool ? async (req) => pool.checkTx(encodeAssociationTx(req)).hash : undefined,
    cosmosTxOfEvmTx: (hash) => at(d.blocks.txLocationByEvmHash(hash)),
    cosmosTx: (hash) => at(d.blocks.txLocationByCosmosHash(hash)),
    txFailure: (hash) => {
      const stored = d.blocks.receiptByEvmHash(hash);
      if (!stored) return undefined;
      if (stored.receipt.status === 1) return { vmError: '', message: '' };
      // TODO(lead): receipts do not keep the VM's error text yet; see the report.
      return { vmError: 'execution failed', message: 'execution failed' };
    },
  };
}

/**
 * The HTTP dispatcher: `base` (shared with WebSocket) plus every legacy method, behind the gate.
 * `synthetic`: PART B's synthetic views table, when the node builds one.
 */
export function legacyHttpDispatcher(
  base: Dispatcher,
  d: LegacyRpcDeps,
  evm: EvmBackend,
  synthetic?: MethodTable,
): Dispatcher {
  const methods = legacyMethods(legacyBackend(d), {
    chain_getTransactionCount: evmMethods(evm).eth_getTransactionCount,
    synthetic,
  });
  return base.extend(methods, { gate: legacyGate(d.evm.enabledLegacyChainApis) });
}

/** The WebSocket dispatcher: `base` with every chain_/chain2_ name refused as not available. */
export function webSocketDispatcher(base: Dispatcher): Dispatcher {
  return base.extend({}, { gate: webSocketLegacyGate });
}
