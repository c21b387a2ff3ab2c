/**
 * rpc/legacy's LegacyBackend over this node's modules: association records read from the latest
 * committed state, txs and receipts from the block store, association txs submitted through the
 * engine's TxSubmission. `legacyHttpDispatcher` is the HTTP transport's dispatcher: the
 * shared one plus the legacy methods behind the `[evm] enabled_legacy_chain_apis` gate; the WebSocket
 * transport gets `webSocketDispatcher`, which refuses every legacy name (the surface is HTTP-only).
 */
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { encodeAssociationTx } from '../../app/association-tx.ts';
import { cosmosTxHash } from '../../app/cosmos-tx.ts';
import { EvmReader } from '../../app/evm.ts';
import { blockEthTransaction } from '../../execution/transactions.ts';
import { type EvmBackend, evmMethods } from '../../rpc/evm/index.ts';
import {
  type CosmosTxRecord,
  type LegacyBackend,
  legacyGate,
  legacyMethods,
  webSocketLegacyGate,
} from '../../rpc/legacy/index.ts';
import { txJson } from '../../rpc/rest/json.ts';
import type { Dispatcher, MethodTable } from '../../rpc/server/dispatcher.ts';
import type { Chain } from '../../chain/chain.ts';
import type { TxSubmission } from '../../chain/engine.ts';
import type { BlockStore } from '../../storage/blocks/store.ts';

export interface LegacyModules {
  chain: Chain;
  blocks: BlockStore;
  submission: TxSubmission;
}

export function legacyBackend(d: LegacyModules): LegacyBackend {
  const latest = () => new EvmReader(d.chain.state);
  const record = (raw: Uint8Array, height: number, index: number): CosmosTxRecord => {
    const eth = blockEthTransaction(raw);
    return {
      hash: cosmosTxHash(raw),
      height,
      index,
      tx: txJson(TxRaw.decode(raw)),
      evmTxHash: eth?.hash,
    };
  };
  const at = (loc: { height: number; index: number } | undefined) => {
    const raw = loc && d.blocks.txAt(loc.height, loc.index);
    return raw ? record(raw, loc.height, loc.index) : undefined;
  };
  const { submission } = d;
  return {
    associations: {
      cosmosAddressOf: (evm) => latest().cosmosAddressOf(evm),
      evmAddressOf: (cosmos) => latest().evmAddressOf(cosmos),
    },
    submitAssociation: async (req) => (await submission.submitCosmosTx(encodeAssociationTx(req))).hash,
    cosmosTxOfEvmTx: (hash) => at(d.blocks.txLocationByEvmHash(hash)),
    cosmosTx: (hash) => at(d.blocks.txLocationByCosmosHash(hash)),
    txFailure: (hash) => {
      const stored = d.blocks.receiptByEvmHash(hash);
      if (!stored) {
        // A Cosmos tx by its synthetic hash (0x + SHA-256 of the TxRaw, as chain_ views show it): its
        // shell receipt's failure is the Cosmos result log.
        const cosmos = d.blocks.cosmosResultByHash(hash);
        if (!cosmos) return undefined;
        const log = cosmos.result.code === 0 ? '' : cosmos.result.log;
        return { vmError: log, message: log };
      }
      const { status, vmError, revertData } = stored.receipt;
      if (status === 1) return { vmError: '', message: '' };
      return txFailureOf(vmError, revertData);
    },
  };
}

/** ethereumjs words a revert "revert"; geth (whose wording clients match) says "execution reverted". */
const GETH_VM_ERRORS: Readonly<Record<string, string>> = { revert: 'execution reverted' };
const ERROR_SELECTOR = '08c379a0'; // Error(string)
const PANIC_SELECTOR = '4e487b71'; // Panic(uint256)

/** The receipt's VM error in geth's words, and the message with the decoded revert reason. */
export function txFailureOf(vmError: string | undefined, revertData: Uint8Array | undefined) {
  // receipts stored before VM errors were kept say nothing more than the status
  const words =
    vmError === undefined || vmError === '' ? 'execution failed' : (GETH_VM_ERRORS[vmError] ?? vmError);
  const reason = revertData ? revertReason(revertData) : undefined;
  return { vmError: words, message: reason ? `${words}: ${reason}` : words };
}

function revertReason(data: Uint8Array): string | undefined {
  const hex = Buffer.from(data).toString('hex');
  const word = (i: number) => BigInt('0x' + (hex.slice(8 + i * 64, 8 + (i + 1) * 64) || '0'));
  try {
    if (hex.startsWith(ERROR_SELECTOR) && data.length >= 68) {
      const offset = Number(word(0));
      const len = Number(BigInt('0x' + hex.slice(8 + offset * 2, 8 + offset * 2 + 64)));
      const start = 4 + offset + 32;
      if (start + len > data.length) return undefined;
      return new TextDecoder('utf-8', { fatal: true }).decode(data.subarray(start, start + len));
    }
    if (hex.startsWith(PANIC_SELECTOR) && data.length === 36) return `panic code 0x${word(0).toString(16)}`;
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * The HTTP dispatcher: `base` (shared with WebSocket) plus every legacy method (and the synthetic
 * views' table), behind the gate of `enabledApis` (`[evm] enabled_legacy_chain_apis`).
 */
export function legacyHttpDispatcher(
  base: Dispatcher,
  legacy: LegacyBackend,
  evm: EvmBackend,
  enabledApis: readonly string[],
  synthetic: MethodTable,
): Dispatcher {
  const methods = legacyMethods(legacy, {
    chain_getTransactionCount: evmMethods(evm).eth_getTransactionCount,
    synthetic,
  });
  return base.extend(methods, { gate: legacyGate(enabledApis, Object.keys(methods)) });
}

/** The WebSocket dispatcher: `base` with every chain_/chain2_ name refused as not available. */
export function webSocketDispatcher(base: Dispatcher): Dispatcher {
  return base.extend({}, { gate: webSocketLegacyGate });
}
