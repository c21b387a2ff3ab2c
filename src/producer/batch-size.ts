/**
 * On-demand mining's batch size: how many txs a block may wait for. A block that starts with fewer
 * waits up to PARTIAL_BATCH_WAIT_MS for more senders; once as many txs wait as the largest of the
 * recent blocks carried, the senders those blocks answered are back (one script sending tx after
 * tx: its next tx), and waiting longer only delays them. The largest of several blocks, not the
 * last one: a block that took part of the senders would otherwise make that part the batch, and
 * the senders would stay split over two blocks.
 */
export const BATCH_HISTORY = 8;

/**
 * How long a partial batch waits for the rest. The senders a block answered come back within about
 * this: admitting a tx takes ~0.15 ms of the event loop (decoding, sender recovery), eight of them
 * ~1.3 ms. One timer turn (~1 ms) started blocks with 5 of 8 senders' transfers; 2 ms makes them 7,
 * and a burst from 8 senders went from 1,024 to 1,280 tx/s (median of 5 alternating runs).
 */
export const PARTIAL_BATCH_WAIT_MS = 2;

export class BatchSize {
  /** Tx counts of the last BATCH_HISTORY blocks, newest last. */
  private readonly recent: number[] = [];

  /** Notes a committed block's tx count. */
  record(txs: number): void {
    this.recent.push(txs);
    if (this.recent.length > BATCH_HISTORY) this.recent.shift();
  }

  /** Whether `waiting` txs make a whole batch (at least one). */
  complete(waiting: number): boolean {
    return waiting > 0 && waiting >= Math.max(1, ...this.recent);
  }
}
