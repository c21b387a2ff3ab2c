/** Mempool metrics, read from the pools at scrape time. Documented in docs/metrics.md. */
import { Gauge, type Registry } from 'prom-client';

export interface MempoolMetricsSource {
  /** Every tx held: EVM (executable and waiting) and Cosmos. */
  size(): number;
  /** EVM txs executable now (contiguous nonces from the committed nonce). */
  evmPending(): number;
  /** EVM txs waiting behind a nonce gap. */
  evmQueued(): number;
}

export function registerMempoolMetrics(
  registry: Registry,
  namespace: string,
  pool: MempoolMetricsSource,
): void {
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name: `${namespace}_${name}`,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  gauge('mempool_size', 'Transactions in the mempool (EVM and Cosmos).', pool.size);
  gauge('mempool_evm_pending_txs', 'EVM transactions executable now (contiguous nonces).', pool.evmPending);
  gauge('mempool_evm_queued_txs', 'EVM transactions waiting behind a nonce gap.', pool.evmQueued);
}
