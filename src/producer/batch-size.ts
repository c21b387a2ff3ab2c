/**
 * On-demand mining's batch size: how many txs a block may wait for. A block that starts with fewer
 * waits one timer turn for more senders; once as many txs wait as the largest of the recent blocks
 * carried, the senders those blocks answered are back (one script sending tx after tx: its next
 * tx), and waiting longer only delays them. The largest of several blocks, not the last one: a
 * block that took part of the senders would otherwise make that part the batch, and the senders
 * would stay split over two blocks.
 */
export const BATCH_HISTORY = 8;

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
