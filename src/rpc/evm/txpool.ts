/**
 * geth's txpool_ namespace over the EVM mempool: `txpool_status` (counts), `txpool_content` and
 * `txpool_contentFrom` (the txs, as eth_getTransactionByHash answers a pending one), `txpool_inspect`
 * (one line per tx). Senders are keyed by their checksummed address and txs by their decimal nonce, as
 * geth keys them.
 */
import { toChecksumAddress as checksummed } from '../../crypto/accounts.ts';
import { formatPendingTx } from '../codecs/format.ts';
import { parseEthTx } from '../codecs/eth-tx.ts';
import { quantity } from '../codecs/hex.ts';
import type { PendingTx } from '../codecs/views.ts';
import { p } from '../codecs/params.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import type { EvmBackend } from './backend.ts';

type Lists = { pending: PendingTx[]; queued: PendingTx[] };

function byNonce(txs: PendingTx[], each: (tx: PendingTx) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const tx of txs) out[parseEthTx(tx.raw).nonce.toString()] = each(tx);
  return out;
}

/** geth's summary line: `<to>: <value> wei + <gas> gas × <fee cap or gas price> wei`. */
function summary(tx: PendingTx): string {
  const f = parseEthTx(tx.raw);
  const to = f.to ? checksummed(f.to) : 'contract creation';
  const price = f.type === 2 || f.type === 4 ? f.maxFeePerGas! : f.gasPrice!;
  return `${to}: ${f.value} wei + ${f.gas} gas × ${price} wei`;
}

function grouped(
  senders: ({ address: Uint8Array } & Lists)[],
  each: (tx: PendingTx) => unknown,
): { pending: Record<string, unknown>; queued: Record<string, unknown> } {
  const pending: Record<string, unknown> = {};
  const queued: Record<string, unknown> = {};
  for (const s of senders) {
    const key = checksummed(s.address);
    if (s.pending.length > 0) pending[key] = byNonce(s.pending, each);
    if (s.queued.length > 0) queued[key] = byNonce(s.queued, each);
  }
  return { pending, queued };
}

export function txpoolMethods({ pool }: EvmBackend): MethodTable {
  return {
    txpool_status: method([], () => {
      let pending = 0;
      let queued = 0;
      for (const s of pool.contents()) {
        pending += s.pending.length;
        queued += s.queued.length;
      }
      return { pending: quantity(pending), queued: quantity(queued) };
    }),
    txpool_content: method([], () => grouped(pool.contents(), formatPendingTx)),
    txpool_contentFrom: method([p.address], (address) => {
      const s = pool.contents().find((x) => Buffer.from(x.address).equals(Buffer.from(address)));
      return {
        pending: s ? byNonce(s.pending, formatPendingTx) : {},
        queued: s ? byNonce(s.queued, formatPendingTx) : {},
      };
    }),
    txpool_inspect: method([], () => grouped(pool.contents(), summary)),
  };
}
