/**
 * The events each tx of a block reports (CometBFT ExecTxResult.events): a Cosmos tx's are its stored
 * result's; an EVM tx's are derived from its receipt here, once, so the embedded engine's consensus
 * RPC and the network engine's FinalizeBlock answer report the same events. The event index keeps
 * only Cosmos txs' events: an EVM tx is found by its hash index (EVM_TX_EVENT_TYPE conditions).
 */
import { toHex } from '../../primitives/bytes.ts';
import type { Receipt, TxEvent } from './types.ts';

export const EVM_TX_EVENT_TYPE = 'ethereum_tx';

/** Cosmos EVM's `ethereum_tx` event: the Ethereum hash (hex, no 0x) and transactionIndex. */
export function evmTxEvents(r: Pick<Receipt, 'txHash' | 'txIndex' | 'gasUsed'>): TxEvent[] {
  return [
    {
      type: EVM_TX_EVENT_TYPE,
      attributes: [
        { key: 'ethereumTxHash', value: toHex(r.txHash), index: true },
        { key: 'txIndex', value: String(r.txIndex), index: true },
        { key: 'txGasUsed', value: r.gasUsed.toString(), index: false },
      ],
    },
  ];
}
