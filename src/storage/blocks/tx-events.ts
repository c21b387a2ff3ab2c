/**
 * The events each tx of a block reports (CometBFT ExecTxResult.events): a Cosmos tx's are its stored
 * result's; an EVM tx's are derived from its receipt here, once, so the embedded engine's consensus
 * RPC, the network engine's FinalizeBlock answer and the event index all see the same events.
 */
import { toHex } from '../../primitives/bytes.ts';
import type { CosmosTxResult, Receipt, TxEvent } from './types.ts';

/** Cosmos EVM's `ethereum_tx` event: the Ethereum hash (hex, no 0x) and transactionIndex. */
export function evmTxEvents(r: Pick<Receipt, 'txHash' | 'txIndex' | 'gasUsed'>): TxEvent[] {
  return [
    {
      type: 'ethereum_tx',
      attributes: [
        { key: 'ethereumTxHash', value: toHex(r.txHash), index: true },
        { key: 'txIndex', value: String(r.txIndex), index: true },
        { key: 'txGasUsed', value: r.gasUsed.toString(), index: false },
      ],
    },
  ];
}

/** The events of every tx of a block that has any, by position in the block's txs. */
export function blockTxEvents(receipts: Receipt[], cosmosResults: CosmosTxResult[]): Map<number, TxEvent[]> {
  const out = new Map<number, TxEvent[]>();
  for (const r of receipts) out.set(r.blockTxIndex, evmTxEvents(r));
  for (const r of cosmosResults) out.set(r.index, r.events);
  return out;
}
